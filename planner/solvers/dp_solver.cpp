// Exact memory-indexed DP for the plan search: rounded-up and rounded-down quantisation bound the true
// optimum; the max term is enumerated over the distinct transient sizes, pruned by the LP bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "planner/solvers/mckp.hpp"

namespace shardscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct DpRun {
  bool feasible = false;
  double seconds = kInf;
  std::vector<int> picks;
  std::vector<double> value;  // value[m]: min seconds with quantised resident <= m bins (last row)
  std::int64_t cells = 0;
};

// One DP over classes with items of transient <= threshold; weights quantised by `quantum` (up or down).
DpRun run_dp(const McProblem& problem, double threshold, double capacity, double quantum, bool round_up,
             bool keep_value, bool reconstruct) {
  DpRun run;
  if (capacity < 0) return run;
  const auto bins = static_cast<std::size_t>(std::floor(capacity / quantum + 1e-9));
  std::vector<double> f(bins + 1, 0.0), next(bins + 1);
  std::vector<std::uint16_t> choice;
  if (reconstruct) choice.assign(problem.classes.size() * (bins + 1), 0);
  std::vector<std::pair<std::size_t, double>> items;  // (weight bins, seconds)
  std::vector<int> item_index;
  for (std::size_t c = 0; c < problem.classes.size(); ++c) {
    items.clear();
    item_index.clear();
    for (std::size_t j = 0; j < problem.classes[c].size(); ++j) {
      const McItem& it = problem.classes[c][j];
      if (it.transient_bytes > threshold) continue;
      const double q = it.resident_bytes / quantum;
      const double w = round_up ? std::ceil(q - 1e-9) : std::floor(q + 1e-9);
      if (w > static_cast<double>(bins)) continue;
      items.emplace_back(static_cast<std::size_t>(std::max(0.0, w)), it.seconds);
      item_index.push_back(static_cast<int>(j));
    }
    if (items.empty()) return run;
    std::fill(next.begin(), next.end(), kInf);
    std::uint16_t* row = reconstruct ? &choice[c * (bins + 1)] : nullptr;
    for (std::size_t j = 0; j < items.size(); ++j) {
      const std::size_t w = items[j].first;
      const double t = items[j].second;
      for (std::size_t m = w; m <= bins; ++m) {
        const double v = f[m - w] + t;
        if (v < next[m]) {
          next[m] = v;
          if (row != nullptr) row[m] = static_cast<std::uint16_t>(j);
        }
      }
      run.cells += static_cast<std::int64_t>(bins + 1 - w);
    }
    f.swap(next);
    if (reconstruct) {
      // Remember which original item each local index is.
      for (std::size_t m = 0; m <= bins; ++m) row[m] = static_cast<std::uint16_t>(item_index[row[m]]);
    }
  }
  run.seconds = f[bins];
  run.feasible = std::isfinite(run.seconds);
  if (keep_value) run.value = f;
  if (run.feasible && reconstruct) {
    run.picks.assign(problem.classes.size(), 0);
    std::size_t m = bins;
    for (std::size_t c = problem.classes.size(); c-- > 0;) {
      const int j = choice[c * (bins + 1) + m];
      run.picks[c] = j;
      const McItem& it = problem.classes[c][static_cast<std::size_t>(j)];
      m -= static_cast<std::size_t>(std::ceil(it.resident_bytes / quantum - 1e-9));
    }
  }
  return run;
}

std::vector<double> thresholds_of(const McProblem& problem) {
  std::vector<double> t;
  for (const auto& items : problem.classes) {
    for (const McItem& it : items) t.push_back(it.transient_bytes);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

}  // namespace

McSolution solve_dp(const McProblem& problem, const DpOptions& options) {
  McSolution best;
  best.seconds = kInf;
  best.lower_bound_seconds = kInf;
  const double quantum = std::max(1.0, problem.capacity_bytes / std::max(1, options.bins));

  struct Candidate {
    double threshold;
    double lp;
  };
  std::vector<Candidate> candidates;
  for (double threshold : thresholds_of(problem)) {
    const double lp = lp_lower_bound(problem, threshold, problem.capacity_bytes - threshold);
    if (std::isfinite(lp)) candidates.push_back({threshold, lp});
  }
  // Most promising first, so the incumbent prunes the rest.
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.lp < b.lp; });
  double lower = kInf;
  for (const Candidate& c : candidates) {
    const double room = problem.capacity_bytes - c.threshold;
    if (c.lp >= best.seconds) {
      lower = std::min(lower, c.lp);
      continue;
    }
    const DpRun up = run_dp(problem, c.threshold, room, quantum, true, false, true);
    best.explored += up.cells;
    if (up.feasible && up.seconds < best.seconds) {
      best.seconds = up.seconds;
      best.picks = up.picks;
      best.feasible = true;
    }
    const DpRun down = run_dp(problem, c.threshold, room, quantum, false, false, false);
    best.explored += down.cells;
    lower = std::min(lower, std::max(down.seconds, c.lp));
  }
  if (!best.feasible) return best;
  best.seconds = selection_seconds(problem, best.picks);
  best.peak_bytes = selection_peak_bytes(problem, best.picks);
  best.lower_bound_seconds = std::min(lower, best.seconds);
  return best;
}

std::vector<ParetoPoint> pareto_front(const McProblem& problem, const DpOptions& options, int max_points) {
  std::vector<ParetoPoint> points;
  const double quantum = std::max(1.0, problem.capacity_bytes / std::max(1, options.bins));
  for (double threshold : thresholds_of(problem)) {
    const DpRun run = run_dp(problem, threshold, problem.capacity_bytes - threshold, quantum, true, true, false);
    for (std::size_t m = 0; m < run.value.size(); ++m) {
      if (std::isfinite(run.value[m])) points.push_back({static_cast<double>(m) * quantum + threshold, run.value[m]});
    }
  }
  std::sort(points.begin(), points.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    return a.peak_bytes != b.peak_bytes ? a.peak_bytes < b.peak_bytes : a.seconds < b.seconds;
  });
  std::vector<ParetoPoint> front;
  for (const ParetoPoint& p : points) {
    if (front.empty() || p.seconds < front.back().seconds) front.push_back(p);
  }
  if (static_cast<int>(front.size()) > max_points && max_points > 1) {
    std::vector<ParetoPoint> thinned;
    for (int i = 0; i < max_points; ++i) {
      thinned.push_back(front[static_cast<std::size_t>(i) * (front.size() - 1) / static_cast<std::size_t>(max_points - 1)]);
    }
    front = thinned;
  }
  return front;
}

}  // namespace shardscope
