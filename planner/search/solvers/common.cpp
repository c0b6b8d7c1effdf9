// Shared pieces of the solvers: selection cost, dominance filtering.
#include <algorithm>
#include <limits>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope {

double selection_peak_bytes(const McProblem& problem, const std::vector<int>& picks) {
  double resident = 0, transient = 0;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const McItem& item = problem.classes[i][static_cast<std::size_t>(picks[i])];
    resident += item.resident_bytes;
    transient = std::max(transient, item.transient_bytes);
  }
  return resident + transient;
}

double selection_seconds(const McProblem& problem, const std::vector<int>& picks) {
  double seconds = 0;
  for (std::size_t i = 0; i < picks.size(); ++i)
    seconds += problem.classes[i][static_cast<std::size_t>(picks[i])].seconds;
  return seconds;
}

std::vector<double> transient_thresholds(const McProblem& problem) {
  std::vector<double> t;
  for (const auto& items : problem.classes) {
    for (const McItem& it : items) t.push_back(it.transient_bytes);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

std::vector<std::vector<int>> remove_dominated(McProblem& problem) {
  std::vector<std::vector<int>> kept_indices(problem.classes.size());
  for (std::size_t c = 0; c < problem.classes.size(); ++c) {
    const std::vector<McItem>& items = problem.classes[c];
    std::vector<int> order(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) order[i] = static_cast<int>(i);
    // Stable order by seconds, then resident, then transient, then original index: deterministic.
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const McItem& x = items[static_cast<std::size_t>(a)];
      const McItem& y = items[static_cast<std::size_t>(b)];
      if (x.seconds != y.seconds) return x.seconds < y.seconds;
      if (x.resident_bytes != y.resident_bytes) return x.resident_bytes < y.resident_bytes;
      if (x.transient_bytes != y.transient_bytes) return x.transient_bytes < y.transient_bytes;
      return a < b;
    });
    std::vector<int> kept;
    for (int candidate : order) {
      const McItem& x = items[static_cast<std::size_t>(candidate)];
      bool dominated = false;
      for (int k : kept) {
        const McItem& y = items[static_cast<std::size_t>(k)];
        // y is at least as fast (sorted) and no heavier in either memory dimension.
        if (y.resident_bytes <= x.resident_bytes && y.transient_bytes <= x.transient_bytes) {
          dominated = true;
          break;
        }
      }
      if (!dominated) kept.push_back(candidate);
    }
    std::vector<McItem> filtered;
    for (int k : kept) filtered.push_back(items[static_cast<std::size_t>(k)]);
    problem.classes[c] = std::move(filtered);
    kept_indices[c] = std::move(kept);
  }
  return kept_indices;
}

}  // namespace shardscope
