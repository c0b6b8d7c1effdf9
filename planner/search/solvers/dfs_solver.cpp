// The OSDP paper's search: depth-first over operators, pruning when memory exceeds the limit or time
// exceeds the best plan so far (the reference the exact DP is checked and benchmarked against).
#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope {
namespace {

struct Dfs {
  const McProblem& problem;
  std::int64_t node_limit;
  std::chrono::steady_clock::time_point deadline;
  std::vector<std::vector<int>> order;  // per class, items by seconds
  std::vector<int> current, best_picks;
  double best = std::numeric_limits<double>::infinity();
  std::int64_t nodes = 0;
  bool stopped = false;

  void visit(std::size_t c, double seconds, double resident, double transient) {
    if (stopped) return;
    if (++nodes >= node_limit || ((nodes & 0xFFF) == 0 && std::chrono::steady_clock::now() > deadline)) {
      stopped = true;
      return;
    }
    if (c == problem.classes.size()) {
      best = seconds;
      best_picks = current;
      return;
    }
    for (int j : order[c]) {
      const McItem& it = problem.classes[c][static_cast<std::size_t>(j)];
      const double r = resident + it.resident_bytes;
      const double t = std::max(transient, it.transient_bytes);
      if (r + t > problem.capacity_bytes) continue;  // pruning 1: memory over the limit
      if (seconds + it.seconds >= best) continue;    // pruning 2: time over the best plan so far
      current[c] = j;
      visit(c + 1, seconds + it.seconds, r, t);
    }
  }
};

}  // namespace

McSolution solve_dfs(const McProblem& problem, std::int64_t node_limit, double seconds_limit) {
  Dfs dfs{problem,
          node_limit,
          std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                 std::chrono::duration<double>(std::min(seconds_limit, 1e9))),
          {},
          std::vector<int>(problem.classes.size(), 0),
          {}};
  for (const auto& items : problem.classes) {
    std::vector<int> idx(items.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
      return items[static_cast<std::size_t>(a)].seconds < items[static_cast<std::size_t>(b)].seconds;
    });
    dfs.order.push_back(std::move(idx));
  }
  dfs.visit(0, 0, 0, 0);
  McSolution out;
  out.explored = dfs.nodes;
  out.complete = !dfs.stopped;
  out.feasible = !dfs.best_picks.empty() || (problem.classes.empty() && !dfs.stopped);
  if (out.feasible) {
    out.picks = dfs.best_picks;
    out.seconds = selection_seconds(problem, out.picks);
    out.peak_bytes = selection_peak_bytes(problem, out.picks);
    out.lower_bound_seconds = out.complete ? out.seconds : 0;
  }
  return out;
}

McSolution solve_brute_force(const McProblem& problem) {
  McSolution out;
  out.seconds = std::numeric_limits<double>::infinity();
  std::vector<int> picks(problem.classes.size(), 0);
  for (const auto& items : problem.classes) {
    if (items.empty()) return out;
  }
  while (true) {
    ++out.explored;
    if (selection_peak_bytes(problem, picks) <= problem.capacity_bytes) {
      const double s = selection_seconds(problem, picks);
      if (s < out.seconds) {
        out.seconds = s;
        out.picks = picks;
        out.feasible = true;
      }
    }
    std::size_t c = 0;
    while (c < picks.size() && ++picks[c] == static_cast<int>(problem.classes[c].size())) picks[c++] = 0;
    if (c == picks.size()) break;
  }
  if (out.feasible) {
    out.peak_bytes = selection_peak_bytes(problem, out.picks);
    out.lower_bound_seconds = out.seconds;
  }
  return out;
}

}  // namespace shardscope
