// LP relaxation of the multiple-choice knapsack: lower convex hull per class and a greedy pass by slope.
#include <algorithm>
#include <limits>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope {
namespace {

struct Step {
  double weight;  // extra resident bytes
  double saving;  // seconds saved (positive)
};

// The bound from each class's hull (`hull_of(c)`, item indices of class c), classes taken in order.
template <typename HullOf>
double lp_bound_with_hulls(const McProblem& problem, double capacity_bytes, HullOf hull_of,
                           std::vector<Step>& steps) {
  steps.clear();
  double base_weight = 0, base_seconds = 0;
  for (std::size_t c = 0; c < problem.classes.size(); ++c) {
    const std::vector<McItem>& items = problem.classes[c];
    const std::vector<int>& hull = hull_of(c);
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

}  // namespace

double lp_lower_bound(const McProblem& problem, double transient_threshold, double capacity_bytes) {
  std::vector<int> hull;
  std::vector<Step> steps;
  return lp_bound_with_hulls(
      problem, capacity_bytes,
      [&](std::size_t c) -> const std::vector<int>& {
        hull = lower_hull(problem.classes[c], transient_threshold);
        return hull;
      },
      steps);
}

std::vector<double> lp_bounds_by_threshold(const McProblem& problem, const std::vector<double>& thresholds) {
  // Identical classes (repeated layers) share one hull per threshold; the bound is the same computation as
  // lp_lower_bound's, class by class in order, so it is bit for bit the same number.
  const std::vector<std::size_t> rep = class_representatives(problem);
  std::vector<std::vector<int>> hulls(problem.classes.size());
  std::vector<Step> steps;
  std::vector<double> out;
  out.reserve(thresholds.size());
  for (double threshold : thresholds) {
    for (std::size_t c = 0; c < rep.size(); ++c) {
      if (rep[c] == c) hulls[c] = lower_hull(problem.classes[c], threshold);
    }
    out.push_back(lp_bound_with_hulls(
        problem, problem.capacity_bytes - threshold,
        [&](std::size_t c) -> const std::vector<int>& { return hulls[rep[c]]; }, steps));
  }
  return out;
}

}  // namespace shardscope
