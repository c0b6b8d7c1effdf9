// Exact memory-indexed DP for the plan search: rounded-up and rounded-down quantisation bound the true
// optimum; the max term is enumerated over the distinct transient sizes, pruned by the LP bound. Many
// identical classes enter the rounded-up DP as blocks, and the LP greedy plan backs it up.
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

// What the DP takes one item for: a class, or a block of identical classes that all take the same item (its
// weight `members.size()` times the item's, rounded once).
struct Unit {
  std::vector<std::size_t> members;  // class indices; members.front() holds the items
};

// One unit per class; or, when `grouped`, each group of identical classes as blocks of 1, 2, 4, ... members
// and the rest (any count of each of two items is a sum of blocks, and the blocks round log2(k) times, not
// k times).
std::vector<Unit> dp_units(const McProblem& problem, bool grouped) {
  std::vector<Unit> units;
  if (!grouped) {
    for (std::size_t c = 0; c < problem.classes.size(); ++c) units.push_back({{c}});
    return units;
  }
  for (const std::vector<std::size_t>& group : identical_class_groups(problem)) {
    std::size_t block = 1;
    for (std::size_t pos = 0; pos < group.size(); block *= 2) {
      const std::size_t take = std::min(block, group.size() - pos);
      units.push_back({{group.begin() + static_cast<std::ptrdiff_t>(pos),
                        group.begin() + static_cast<std::ptrdiff_t>(pos + take)}});
      pos += take;
    }
  }
  return units;
}

struct DpRun {
  bool feasible = false;
  double seconds = kInf;
  std::vector<int> picks;
  std::vector<double> value;  // value[m]: min seconds with quantised resident <= m bins (last row)
  std::int64_t cells = 0;
};

// One DP over units with items of transient <= threshold; weights quantised by `quantum` (up or down).
// The inner loop is a plain min (vectorisable); the plan is reconstructed from the stored rows.
DpRun run_dp(const McProblem& problem, const std::vector<Unit>& units, double threshold, double capacity,
             double quantum, bool round_up, bool keep_value, bool reconstruct) {
  DpRun run;
  if (capacity < 0) return run;
  const auto bins = static_cast<std::size_t>(std::floor(capacity / quantum + 1e-9));
  const std::size_t width = bins + 1;
  std::vector<double> rows;  // rows[c * width + m] = value after class c (only when reconstructing)
  if (reconstruct) rows.resize(units.size() * width);
  std::vector<double> f(width, 0.0), next(width);
  std::vector<std::vector<std::pair<std::size_t, double>>> weights(units.size());
  std::vector<std::size_t> active, frontier;
  for (std::size_t c = 0; c < units.size(); ++c) {
    auto& items = weights[c];
    const double count = static_cast<double>(units[c].members.size());
    for (const McItem& it : problem.classes[units[c].members.front()]) {
      const double q = count * it.resident_bytes / quantum;
      const double w = round_up ? std::ceil(q - 1e-9) : std::floor(q + 1e-9);
      // Items over the threshold or the capacity are marked unusable with a weight past the end.
      const bool usable = it.transient_bytes <= threshold && w <= static_cast<double>(bins);
      items.emplace_back(usable ? static_cast<std::size_t>(std::max(0.0, w)) : width, count * it.seconds);
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
    for (std::size_t c = units.size(); c-- > 0;) {
      const double target = rows[c * width + m];
      int chosen = -1;
      for (std::size_t j = 0; j < weights[c].size() && chosen < 0; ++j) {
        const auto [w, t] = weights[c][j];
        if (w > m) continue;
        const double before = c == 0 ? 0.0 : rows[(c - 1) * width + (m - w)];
        if (before + t == target) chosen = static_cast<int>(j);
      }
      if (chosen < 0) throw std::logic_error("solve_dp: reconstruction found no item (inconsistent DP rows)");
      for (std::size_t member : units[c].members) run.picks[member] = chosen;
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
  // Rounding each of many classes up could exceed the capacity on its own: past the limit, identical classes
  // round as blocks and the LP greedy plan (near-optimal with many classes) is the first incumbent.
  const bool grouped = problem.classes.size() > options.max_single_classes;
  const std::vector<Unit> singles = dp_units(problem, false);
  const std::vector<Unit> blocks = grouped ? dp_units(problem, true) : std::vector<Unit>{};
  if (grouped) {
    const McSolution greedy = solve_lp_greedy(problem);
    best.seconds = greedy.seconds;
    best.picks = greedy.picks;
    best.feasible = greedy.feasible;
  }

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
    const DpRun up =
        run_dp(problem, grouped ? blocks : singles, c.threshold, room, quantum, true, false, true);
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
    // Per class, never blocks: rounding down a relaxation of every plan is a lower bound.
    const DpRun down = run_dp(problem, singles, c.threshold, problem.capacity_bytes - c.threshold, quantum,
                              false, false, false);
    best.explored += down.cells;
    lower = std::min(lower, std::max(down.seconds, c.lp));
  }
  // Rounding may hide plans that fit in exact bytes (those within the rounding of the limit); the greedy
  // plan fits whenever any plan does, so the solver never calls a fitting instance infeasible.
  if (!best.feasible && !grouped) {
    const McSolution greedy = solve_lp_greedy(problem);
    best.picks = greedy.picks;
    best.feasible = greedy.feasible;
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
  const std::vector<Unit> units = dp_units(problem, problem.classes.size() > options.max_single_classes);
  for (double threshold : transient_thresholds(problem)) {
    const DpRun run =
        run_dp(problem, units, threshold, problem.capacity_bytes - threshold, quantum, true, true, false);
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
