// Shared pieces of the solvers: selection cost, dominance filtering, identical classes, convex hulls.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_map>

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

std::vector<std::size_t> class_representatives(const McProblem& problem) {
  // Hash each item list (zeros of either sign alike), then compare lists within a bucket exactly.
  const auto bits = [](double x) {
    x += 0.0;  // -0 -> +0: equal values hash alike
    std::uint64_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    return u;
  };
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> buckets;
  std::vector<std::size_t> rep(problem.classes.size());
  for (std::size_t c = 0; c < problem.classes.size(); ++c) {
    std::uint64_t h = 1469598103934665603ull ^ problem.classes[c].size();
    for (const McItem& it : problem.classes[c]) {
      for (double x : {it.seconds, it.resident_bytes, it.transient_bytes}) {
        h ^= bits(x) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      }
    }
    std::vector<std::size_t>& bucket = buckets[h];
    rep[c] = c;
    for (std::size_t other : bucket) {
      const auto& x = problem.classes[other];
      const auto& y = problem.classes[c];
      if (x.size() == y.size() &&
          std::equal(x.begin(), x.end(), y.begin(), [](const McItem& a, const McItem& b) {
            return a.seconds == b.seconds && a.resident_bytes == b.resident_bytes &&
                   a.transient_bytes == b.transient_bytes;
          })) {
        rep[c] = other;
        break;
      }
    }
    if (rep[c] == c) bucket.push_back(c);
  }
  return rep;
}

std::vector<std::vector<std::size_t>> identical_class_groups(const McProblem& problem) {
  const std::vector<std::size_t> rep = class_representatives(problem);
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> group_of_rep(problem.classes.size(), 0);
  for (std::size_t c = 0; c < rep.size(); ++c) {
    if (rep[c] == c) {
      group_of_rep[c] = groups.size();
      groups.emplace_back();
    }
    groups[group_of_rep[rep[c]]].push_back(c);
  }
  return groups;
}

std::vector<int> lower_hull(const std::vector<McItem>& items, double transient_threshold) {
  std::vector<int> points;
  for (std::size_t j = 0; j < items.size(); ++j) {
    if (items[j].transient_bytes <= transient_threshold) points.push_back(static_cast<int>(j));
  }
  const auto at = [&](int j) -> const McItem& { return items[static_cast<std::size_t>(j)]; };
  std::sort(points.begin(), points.end(), [&](int a, int b) {
    if (at(a).resident_bytes != at(b).resident_bytes) return at(a).resident_bytes < at(b).resident_bytes;
    if (at(a).seconds != at(b).seconds) return at(a).seconds < at(b).seconds;
    return a < b;
  });
  std::vector<int> hull;
  for (int p : points) {
    if (!hull.empty() && at(p).seconds >= at(hull.back()).seconds) continue;  // heavier and not faster
    while (hull.size() >= 2) {
      const McItem& a = at(hull[hull.size() - 2]);
      const McItem& b = at(hull.back());
      // Remove b if it lies on or above the segment a-p.
      const double cross = (b.resident_bytes - a.resident_bytes) * (at(p).seconds - a.seconds) -
                           (b.seconds - a.seconds) * (at(p).resident_bytes - a.resident_bytes);
      if (cross > 0) break;
      hull.pop_back();
    }
    hull.push_back(p);
  }
  return hull;
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
