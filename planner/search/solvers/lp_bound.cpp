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
  for (const auto& items : problem.classes) {
    const std::vector<int> hull = lower_hull(items, transient_threshold);
    if (hull.empty()) return std::numeric_limits<double>::infinity();
    const auto at = [&](std::size_t i) -> const McItem& { return items[static_cast<std::size_t>(hull[i])]; };
    base_weight += at(0).resident_bytes;
    base_seconds += at(0).seconds;
    for (std::size_t i = 1; i < hull.size(); ++i) {
      steps.push_back({at(i).resident_bytes - at(i - 1).resident_bytes, at(i - 1).seconds - at(i).seconds});
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
