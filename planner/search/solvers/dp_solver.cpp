// Exact memory-indexed DP for the plan search: rounded-up and rounded-down quantisation bound the true
// optimum; the max term is enumerated over the distinct transient sizes, pruned by the LP bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "planner/search/solvers/mckp.hpp"

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
// The inner loop is a plain min (vectorisable); the plan is reconstructed from the stored rows.
DpRun run_dp(const McProblem& problem, double threshold, double capacity, double quantum, bool round_up,
             bool keep_value, bool reconstruct) {
  DpRun run;
  if (capacity < 0) return run;
  const auto bins = static_cast<std::size_t>(std::floor(capacity / quantum + 1e-9));
  const std::size_t width = bins + 1;
  std::vector<double> rows;  // rows[c * width + m] = value after class c (only when reconstructing)
  if (reconstruct) rows.resize(problem.classes.size() * width);
  std::vector<double> f(width, 0.0), next(width);
  std::vector<std::vector<std::pair<std::size_t, double>>> weights(problem.classes.size());
  std::vector<std::size_t> active, frontier;
  for (std::size_t c = 0; c < problem.classes.size(); ++c) {
    auto& items = weights[c];
    for (const McItem& it : problem.classes[c]) {
      const double q = it.resident_bytes / quantum;
      const double w = round_up ? std::ceil(q - 1e-9) : std::floor(q + 1e-9);
      // Items over the threshold or the capacity are marked unusable with a weight past the end.
      const bool usable = it.transient_bytes <= threshold && w <= static_cast<double>(bins);
      items.emplace_back(usable ? static_cast<std::size_t>(std::max(0.0, w)) : width, it.seconds);
    }
    // At this threshold only (quantised weight, seconds) matter: keep the items no other usable item
    // beats on both (ties: the first), which usually leaves a handful per class.
    active.clear();
    for (std::size_t j = 0; j < items.size(); ++j) {
      if (items[j].first < width) active.push_back(j);
    }
    std::stable_sort(active.begin(), active.end(), [&](std::size_t a, std::size_t b) {
      return items[a].first != items[b].first ? items[a].first < items[b].first
                                              : items[a].second < items[b].second;
    });
    frontier.clear();
    for (std::size_t j : active) {
      if (frontier.empty() || items[j].second < items[frontier.back()].second) frontier.push_back(j);
    }
    std::fill(next.begin(), next.end(), kInf);
    bool any = false;
    for (std::size_t j : frontier) {
      const auto [w, t] = items[j];
      any = true;
      const double* src = f.data();
      double* dst = next.data();
      for (std::size_t m = w; m < width; ++m) dst[m] = std::min(dst[m], src[m - w] + t);
      run.cells += static_cast<std::int64_t>(width - w);
    }
    if (!any) return run;
    f.swap(next);
    if (reconstruct) std::copy(f.begin(), f.end(), rows.begin() + static_cast<std::ptrdiff_t>(c * width));
  }
  run.seconds = f[bins];
  run.feasible = std::isfinite(run.seconds);
  if (keep_value) run.value = f;
  if (run.feasible && reconstruct) {
    run.picks.assign(problem.classes.size(), 0);
    std::size_t m = bins;
    for (std::size_t c = problem.classes.size(); c-- > 0;) {
      const double target = rows[c * width + m];
      int chosen = -1;
      for (std::size_t j = 0; j < weights[c].size() && chosen < 0; ++j) {
        const auto [w, t] = weights[c][j];
        if (w > m) continue;
        const double before = c == 0 ? 0.0 : rows[(c - 1) * width + (m - w)];
        if (before + t == target) chosen = static_cast<int>(j);
      }
      if (chosen < 0) throw std::logic_error("solve_dp: reconstruction found no item (inconsistent DP rows)");
      run.picks[c] = chosen;
      m -= weights[c][static_cast<std::size_t>(chosen)].first;
    }
  }
  return run;
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
  for (double threshold : transient_thresholds(problem)) {
    const double lp = lp_lower_bound(problem, threshold, problem.capacity_bytes - threshold);
    if (std::isfinite(lp)) candidates.push_back({threshold, lp});
  }
  // Most promising first, so the incumbent prunes the rest.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.lp < b.lp; });
  double lower = kInf;
  std::vector<Candidate> lower_candidates;
  for (const Candidate& c : candidates) {
    const double room = problem.capacity_bytes - c.threshold;
    // A threshold whose LP bound is within the certified gap of the incumbent cannot improve it by more
    // than that gap; its LP bound goes into the lower bound instead of a DP run.
    if (c.lp >= best.seconds * (1 - options.lp_certify_gap)) {
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
    lower_candidates.push_back(c);
  }
  // Lower bound: a threshold whose LP bound is already within the target gap of the incumbent needs no
  // rounded-down DP; the others do.
  for (const Candidate& c : lower_candidates) {
    if (best.feasible && c.lp >= best.seconds * (1 - options.lp_certify_gap)) {
      lower = std::min(lower, c.lp);
      continue;
    }
    const DpRun down =
        run_dp(problem, c.threshold, problem.capacity_bytes - c.threshold, quantum, false, false, false);
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
  for (double threshold : transient_thresholds(problem)) {
    const DpRun run =
        run_dp(problem, threshold, problem.capacity_bytes - threshold, quantum, true, true, false);
    for (std::size_t m = 0; m < run.value.size(); ++m) {
      if (std::isfinite(run.value[m]))
        points.push_back({static_cast<double>(m) * quantum + threshold, run.value[m]});
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
      thinned.push_back(
          front[static_cast<std::size_t>(i) * (front.size() - 1) / static_cast<std::size_t>(max_points - 1)]);
    }
    front = thinned;
  }
  return front;
}

}  // namespace shardscope
