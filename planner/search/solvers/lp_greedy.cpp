// Greedy rounding of the LP relaxation: a plan that fits in exact bytes whenever one exists, for any size.
#include <algorithm>
#include <limits>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope {
namespace {

struct Step {
  double weight;    // extra resident bytes
  double saving;    // seconds saved (positive)
  std::size_t cls;  // the class that takes it
  std::size_t to;   // its position on that class's hull
};

// The greedy plan at one transient threshold (every pick's transient at most `threshold`), or no picks when
// even the lightest items do not fit. `hulls[g]` is the hull of group g's classes.
std::vector<int> greedy_at(const McProblem& problem, double threshold,
                           const std::vector<std::vector<int>>& hulls,
                           const std::vector<std::size_t>& group_of) {
  const std::size_t n = problem.classes.size();
  std::vector<int> picks(n);
  std::vector<Step> steps;
  double base = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const std::vector<int>& hull = hulls[group_of[c]];
    if (hull.empty()) return {};
    const auto at = [&](std::size_t i) -> const McItem& {
      return problem.classes[c][static_cast<std::size_t>(hull[i])];
    };
    picks[c] = hull.front();
    base += at(0).resident_bytes;
    for (std::size_t i = 1; i < hull.size(); ++i) {
      steps.push_back(
          {at(i).resident_bytes - at(i - 1).resident_bytes, at(i - 1).seconds - at(i).seconds, c, i});
    }
  }
  if (selection_peak_bytes(problem, picks) > problem.capacity_bytes) return {};
  const std::vector<int> lightest = picks;
  // By seconds saved per byte, ties in class and hull order (a class's own steps flatten strictly, so each
  // class meets its steps in hull order).
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.saving * b.weight > b.saving * a.weight; });
  std::vector<char> stopped(n, 0);
  double room = problem.capacity_bytes - threshold - base;
  for (const Step& s : steps) {
    if (stopped[s.cls]) continue;
    if (s.weight > room) {
      stopped[s.cls] = 1;  // its later steps would skip this one
      continue;
    }
    room -= s.weight;
    picks[s.cls] = hulls[group_of[s.cls]][s.to];
  }
  // Rounding in the running sum must not push the plan over: then the lightest plan (checked above) stays.
  return selection_peak_bytes(problem, picks) <= problem.capacity_bytes ? picks : lightest;
}

}  // namespace

McSolution solve_lp_greedy(const McProblem& problem) {
  McSolution best;
  best.seconds = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<std::size_t>> groups = identical_class_groups(problem);
  std::vector<std::size_t> group_of(problem.classes.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t c : groups[g]) group_of[c] = g;
  }
  std::vector<std::vector<int>> hulls(groups.size());
  for (double threshold : transient_thresholds(problem)) {
    for (std::size_t g = 0; g < groups.size(); ++g)
      hulls[g] = lower_hull(problem.classes[groups[g].front()], threshold);
    std::vector<int> picks = greedy_at(problem, threshold, hulls, group_of);
    ++best.explored;
    if (picks.empty()) continue;
    const double seconds = selection_seconds(problem, picks);
    if (seconds < best.seconds) {
      best.seconds = seconds;
      best.picks = std::move(picks);
      best.feasible = true;
    }
  }
  if (!best.feasible) return best;
  best.peak_bytes = selection_peak_bytes(problem, best.picks);
  best.lower_bound_seconds = 0;  // a heuristic: no bound of its own
  return best;
}

}  // namespace shardscope
