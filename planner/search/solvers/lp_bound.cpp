// LP relaxation of the multiple-choice knapsack: lower convex hull per class and a greedy pass by slope.
#include <algorithm>
#include <limits>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope {

double lp_lower_bound(const McProblem& problem, double transient_threshold, double capacity_bytes) {
  struct Step {
    double weight;  // extra resident bytes
    double saving;  // seconds saved (positive)
  };
  std::vector<Step> steps;
  double base_weight = 0, base_seconds = 0;
  std::vector<std::pair<double, double>> points;  // (resident, seconds)
  std::vector<std::pair<double, double>> hull;
  for (const auto& items : problem.classes) {
    points.clear();
    for (const McItem& item : items) {
      if (item.transient_bytes <= transient_threshold) points.emplace_back(item.resident_bytes, item.seconds);
    }
    if (points.empty()) return std::numeric_limits<double>::infinity();
    std::sort(points.begin(), points.end());
    // Lower-left convex hull with seconds strictly decreasing as resident grows.
    hull.clear();
    for (const auto& p : points) {
      if (!hull.empty() && p.second >= hull.back().second) continue;  // heavier and not faster
      while (hull.size() >= 2) {
        const auto& a = hull[hull.size() - 2];
        const auto& b = hull.back();
        // Remove b if it lies on or above the segment a-p.
        const double cross =
            (b.first - a.first) * (p.second - a.second) - (b.second - a.second) * (p.first - a.first);
        if (cross <= 0) {
          hull.pop_back();
        } else {
          break;
        }
      }
      hull.push_back(p);
    }
    base_weight += hull.front().first;
    base_seconds += hull.front().second;
    for (std::size_t i = 1; i < hull.size(); ++i) {
      steps.push_back({hull[i].first - hull[i - 1].first, hull[i - 1].second - hull[i].second});
    }
  }
  if (base_weight > capacity_bytes) return std::numeric_limits<double>::infinity();
  // Convexity keeps each class's steps in slope order, so a global sort by slope is a valid greedy order.
  std::sort(steps.begin(), steps.end(),
            [](const Step& a, const Step& b) { return a.saving * b.weight > b.saving * a.weight; });
  double room = capacity_bytes - base_weight;
  double seconds = base_seconds;
  for (const Step& s : steps) {
    if (s.weight <= room) {
      room -= s.weight;
      seconds -= s.saving;
    } else {
      seconds -= s.saving * (room / s.weight);
      break;
    }
  }
  return seconds;
}

}  // namespace shardscope
