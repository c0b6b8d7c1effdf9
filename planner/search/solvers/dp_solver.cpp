// Exact memory-indexed DP for the plan search: rounded-up and rounded-down quantisation bound the true
// optimum; the max term is enumerated over the distinct transient sizes, pruned by the LP bound. Many
// identical classes enter the rounded-up DP as blocks, and the LP greedy plan backs it up.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "planner/search/solvers/mckp.hpp"
#include "planner/search/task_pool.hpp"

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

// The DP's two row kernels, dst[m] = src[m] + t and dst[m] = min(dst[m], src[m] + t) for m in [0, count):
// exact IEEE adds and mins, so the AVX2 clone (picked at load time where the CPU has it) gives the same bits
// as the baseline SSE2 one, twice as wide.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SHARDSCOPE_ROW_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define SHARDSCOPE_ROW_KERNEL
#endif
SHARDSCOPE_ROW_KERNEL void row_assign(double* __restrict dst, const double* __restrict src, double t,
                                      std::size_t count) {
  for (std::size_t m = 0; m < count; ++m) dst[m] = src[m] + t;
}
SHARDSCOPE_ROW_KERNEL void row_min(double* __restrict dst, const double* __restrict src, double t,
                                   std::size_t count) {
  for (std::size_t m = 0; m < count; ++m) dst[m] = std::min(dst[m], src[m] + t);
}

struct DpRun {
  bool feasible = false;
  double seconds = kInf;
  std::vector<int> picks;
  std::vector<double> value;  // value[m]: min seconds with quantised resident <= m bins (last row)
  std::int64_t cells = 0;
};

// Buffers one thread reuses from DP to DP, so a run allocates nothing once they have grown.
struct DpScratch {
  std::vector<std::size_t> weight;      // every unit's items, flat: quantised weight (width: unusable)
  std::vector<double> seconds;          // the same items' seconds (x members)
  std::vector<std::size_t> item_begin;  // unit c's items are [item_begin[c], item_begin[c + 1])
  std::vector<std::size_t> frontier;    // flat item positions of each unit's frontier
  std::vector<std::size_t> frontier_begin;
  std::vector<std::size_t> heaviest;  // per unit: its heaviest usable quantised weight
  std::vector<std::size_t> need;      // per unit: the lowest index of its row a later row reads
  std::vector<std::size_t> low;       // per unit: first index its row computes (below: +inf or unused)
  std::vector<std::size_t> active;
  // Row c holds only its band [low[c], width), at offset[c] (when reconstructing; else two rolling rows).
  // Not value-initialised: every entry of a band is written before it is read.
  std::unique_ptr<double[]> rows;
  std::size_t rows_capacity = 0;
  std::vector<std::size_t> offset;
  std::vector<double> zeros;  // the row before the first unit: 0 everywhere
};

// A pool of scratch buffers shared by all threads (short-lived helper threads reuse warm buffers instead of
// touching fresh pages): a run leases one and gives it back.
class ScratchLease {
 public:
  ScratchLease() {
    const std::lock_guard<std::mutex> lock(mutex());
    if (pool().empty()) {
      scratch_ = std::make_unique<DpScratch>();
    } else {
      scratch_ = std::move(pool().back());
      pool().pop_back();
    }
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  ~ScratchLease() {
    const std::lock_guard<std::mutex> lock(mutex());
    pool().push_back(std::move(scratch_));
  }
  DpScratch& get() { return *scratch_; }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<std::unique_ptr<DpScratch>>& pool() {
    static std::vector<std::unique_ptr<DpScratch>> p;
    return p;
  }
  std::unique_ptr<DpScratch> scratch_;
};

// What one DP run computes: the units' items of transient <= threshold_bytes in capacity_bytes, weights
// quantised by quantum_bytes rounded up (a plan that fits: an upper bound) or down (a lower bound); whether
// it keeps the last row's values (the Pareto front) and reconstructs the picks.
struct DpPass {
  double threshold_bytes = 0;
  double capacity_bytes = 0;
  double quantum_bytes = 1;
  bool round_up = true;
  bool keep_value = false;
  bool reconstruct = false;
};

// Pass 1: every unit's quantised items and its frontier (the items no other usable item beats on weight and
// seconds). False when some unit has no usable item or even the lightest items overflow every bin.
bool quantise_units(const McProblem& problem, const std::vector<Unit>& units, const DpPass& pass,
                    std::size_t bins, DpScratch& s) {
  const std::size_t width = bins + 1;
  const std::size_t n = units.size();
  s.weight.clear();
  s.seconds.clear();
  s.item_begin.assign(1, 0);
  s.frontier.clear();
  s.frontier_begin.assign(1, 0);
  s.heaviest.assign(n, 0);
  std::size_t lightest_sum = 0;  // sum of the units' lightest usable weights (the first finite index)
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t first = s.weight.size();
    const double count = static_cast<double>(units[c].members.size());
    for (const McItem& it : problem.classes[units[c].members.front()]) {
      const double q = count * it.resident_bytes / pass.quantum_bytes;
      const double w = pass.round_up ? std::ceil(q - 1e-9) : std::floor(q + 1e-9);
      // Items over the threshold or the capacity are marked unusable with a weight past the end.
      const bool usable = it.transient_bytes <= pass.threshold_bytes && w <= static_cast<double>(bins);
      const std::size_t weight = usable ? static_cast<std::size_t>(std::max(0.0, w)) : width;
      s.weight.push_back(weight);
      s.seconds.push_back(count * it.seconds);
      if (usable) s.heaviest[c] = std::max(s.heaviest[c], weight);
    }
    s.item_begin.push_back(s.weight.size());
    // At this threshold only (quantised weight, seconds) matter: keep the items no other usable item
    // beats on both (ties: the first), which usually leaves a handful per class.
    s.active.clear();
    for (std::size_t j = first; j < s.weight.size(); ++j) {
      if (s.weight[j] < width) s.active.push_back(j);
    }
    std::stable_sort(s.active.begin(), s.active.end(), [&](std::size_t a, std::size_t b) {
      return s.weight[a] != s.weight[b] ? s.weight[a] < s.weight[b] : s.seconds[a] < s.seconds[b];
    });
    const std::size_t frontier_first = s.frontier.size();
    for (std::size_t j : s.active) {
      if (s.frontier.size() == frontier_first || s.seconds[j] < s.seconds[s.frontier.back()])
        s.frontier.push_back(j);
    }
    s.frontier_begin.push_back(s.frontier.size());
    if (s.frontier.size() == frontier_first) return false;  // no usable item: nothing fits
    lightest_sum += s.weight[s.frontier[frontier_first]];
    if (lightest_sum > bins) return false;  // even the lightest items overflow every bin
  }
  return true;
}

// Pass 2: the band of each row (need[c]: the lowest index of row c a later row, or the answer, reads) and
// where each row is stored; grows the row buffer as needed.
void plan_bands(std::size_t n, std::size_t bins, const DpPass& pass, DpScratch& s) {
  const std::size_t width = bins + 1;
  s.need.assign(n, 0);
  if (!pass.keep_value) {
    std::size_t lowest = bins;
    for (std::size_t c = n; c-- > 0;) {
      s.need[c] = lowest;
      lowest = lowest >= s.heaviest[c] ? lowest - s.heaviest[c] : 0;
    }
  }
  s.low.assign(n, 0);
  std::size_t finite_from = 0;  // first finite index of the current row
  for (std::size_t c = 0; c < n; ++c) {
    finite_from += s.weight[s.frontier[s.frontier_begin[c]]];
    s.low[c] = std::max(finite_from, s.need[c]);
  }
  std::size_t total = 0;
  s.offset.assign(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    s.offset[c] = pass.reconstruct ? total : (c % 2) * width;
    total = pass.reconstruct ? total + (width - s.low[c]) : 2 * width;
  }
  if (s.rows_capacity < total) {
    s.rows = std::make_unique_for_overwrite<double[]>(total);
    s.rows_capacity = total;
  }
  if (s.zeros.size() < width) s.zeros.assign(width, 0.0);
}

// Pass 3: the rows, each over its band; returns the last row (entry m at row[m - low[n - 1]]) and counts the
// cells computed.
const double* fill_rows(std::size_t n, std::size_t width, DpScratch& s, std::int64_t& cells) {
  // Band pointers: row[m - from] is entry m of this row, prev[x - prev_low] entry x of the previous one.
  const double* prev = s.zeros.data();
  std::size_t prev_low = 0;
  double* row = nullptr;
  for (std::size_t c = 0; c < n; ++c) {
    row = s.rows.get() + s.offset[c];
    const std::size_t from = s.low[c];
    // prev is +inf below prev_low, so item j contributes from max(from, prev_low + w) on.
    const std::size_t f_begin = s.frontier_begin[c], f_end = s.frontier_begin[c + 1];
    const std::size_t w0 = s.weight[s.frontier[f_begin]];
    const double t0 = s.seconds[s.frontier[f_begin]];
    const std::size_t start0 = std::max(from, prev_low + w0);
    for (std::size_t m = from; m < start0 && m < width; ++m) row[m - from] = kInf;
    if (start0 < width)
      row_assign(row + (start0 - from), prev + (start0 - w0 - prev_low), t0, width - start0);
    cells += static_cast<std::int64_t>(width - std::min(width, start0));
    for (std::size_t f = f_begin + 1; f < f_end; ++f) {
      const std::size_t w = s.weight[s.frontier[f]];
      const double t = s.seconds[s.frontier[f]];
      const std::size_t begin = std::max(from, prev_low + w);
      if (begin < width) row_min(row + (begin - from), prev + (begin - w - prev_low), t, width - begin);
      cells += static_cast<std::int64_t>(width - std::min(width, begin));
    }
    prev = row;
    prev_low = from;
  }
  return row;
}

// The picks of a feasible run, from the stored rows: per unit (last first) the first item in class order
// whose entry plus the previous row's gives this row's.
std::vector<int> reconstruct_picks(const McProblem& problem, const std::vector<Unit>& units, std::size_t bins,
                                   const DpScratch& s) {
  std::vector<int> picks(problem.classes.size(), 0);
  std::size_t m = bins;
  // Row c - 1 at index x: its stored value inside its band, +inf below (no plan of those units fits).
  const auto before = [&](std::size_t c, std::size_t x) {
    if (c == 0) return 0.0;
    return x < s.low[c - 1] ? kInf : s.rows[s.offset[c - 1] + (x - s.low[c - 1])];
  };
  for (std::size_t c = units.size(); c-- > 0;) {
    const double target = s.rows[s.offset[c] + (m - s.low[c])];
    int chosen = -1;
    for (std::size_t j = s.item_begin[c]; j < s.item_begin[c + 1] && chosen < 0; ++j) {
      const std::size_t w = s.weight[j];
      if (w > m) continue;
      if (before(c, m - w) + s.seconds[j] == target) chosen = static_cast<int>(j - s.item_begin[c]);
    }
    if (chosen < 0) throw std::logic_error("solve_dp: reconstruction found no item (inconsistent DP rows)");
    for (std::size_t member : units[c].members) picks[member] = chosen;
    m -= s.weight[s.item_begin[c] + static_cast<std::size_t>(chosen)];
  }
  return picks;
}

// One DP over units with items of transient <= threshold; weights quantised by `quantum` (up or down).
// Row c holds f_c[m] = min seconds of units 0..c with quantised resident <= m. The inner loop is a plain
// min (vectorisable) and every row is computed only where it can matter, with the same values as a
// full-width pass: below the sum of the lightest weights every entry is +inf, and (when only f[bins] is
// wanted) below bins minus the heaviest usable weights of the later units no entry is read. The plan is
// reconstructed from the stored rows, each item tried in class order as before.
DpRun run_dp(const McProblem& problem, const std::vector<Unit>& units, const DpPass& pass) {
  DpRun run;
  if (pass.capacity_bytes < 0) return run;
  const auto bins = static_cast<std::size_t>(std::floor(pass.capacity_bytes / pass.quantum_bytes + 1e-9));
  const std::size_t width = bins + 1;
  ScratchLease lease;
  DpScratch& s = lease.get();
  if (!quantise_units(problem, units, pass, bins, s)) return run;
  plan_bands(units.size(), bins, pass, s);
  const double* row = fill_rows(units.size(), width, s, run.cells);
  const std::size_t from = s.low[units.size() - 1];
  run.seconds = row[bins - from];
  run.feasible = std::isfinite(run.seconds);
  if (pass.keep_value) {
    run.value.assign(width, kInf);
    std::copy(row, row + (width - from), run.value.begin() + static_cast<std::ptrdiff_t>(from));
  }
  if (run.feasible && pass.reconstruct) run.picks = reconstruct_picks(problem, units, bins, s);
  return run;
}

// A transient threshold worth a DP, with its LP bound.
struct Candidate {
  double threshold;
  double lp;
};

// The thresholds with a finite LP bound, most promising first (so the incumbent prunes the rest).
std::vector<Candidate> threshold_candidates(const std::vector<double>& thresholds,
                                            const std::vector<double>& lp_bounds) {
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < thresholds.size(); ++i) {
    if (std::isfinite(lp_bounds[i])) candidates.push_back({thresholds[i], lp_bounds[i]});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.lp < b.lp; });
  return candidates;
}

}  // namespace

McSolution solve_dp(const McProblem& problem, const DpOptions& options) {
  const std::vector<double> thresholds = transient_thresholds(problem);
  return solve_dp(problem, options, thresholds, lp_bounds_by_threshold(problem, thresholds));
}

McSolution solve_dp(const McProblem& problem, const DpOptions& options, const std::vector<double>& thresholds,
                    const std::vector<double>& lp_bounds) {
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
  double lower = kInf;
  std::vector<Candidate> lower_candidates;
  for (const Candidate& c : threshold_candidates(thresholds, lp_bounds)) {
    const double room = problem.capacity_bytes - c.threshold;
    // A threshold whose LP bound is within the certified gap of the incumbent cannot improve it by more
    // than that gap; its LP bound goes into the lower bound instead of a DP run.
    if (c.lp >= best.seconds * (1 - options.lp_certify_gap)) {
      lower = std::min(lower, c.lp);
      continue;
    }
    const DpRun up = run_dp(problem, grouped ? blocks : singles,
                            DpPass{.threshold_bytes = c.threshold,
                                   .capacity_bytes = room,
                                   .quantum_bytes = quantum,
                                   .round_up = true,
                                   .reconstruct = true});
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
    const DpRun down = run_dp(problem, singles,
                              DpPass{.threshold_bytes = c.threshold,
                                     .capacity_bytes = problem.capacity_bytes - c.threshold,
                                     .quantum_bytes = quantum,
                                     .round_up = false});
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
  const double quantum = std::max(1.0, problem.capacity_bytes / std::max(1, options.bins));
  const std::vector<Unit> units = dp_units(problem, problem.classes.size() > options.max_single_classes);
  const std::vector<double> thresholds = transient_thresholds(problem);
  // The points of thresholds [first, last), in threshold order.
  const auto points_of = [&](std::size_t first, std::size_t last) {
    std::vector<ParetoPoint> out;
    for (std::size_t i = first; i < last; ++i) {
      const double threshold = thresholds[i];
      const DpRun run = run_dp(problem, units,
                               DpPass{.threshold_bytes = threshold,
                                      .capacity_bytes = problem.capacity_bytes - threshold,
                                      .quantum_bytes = quantum,
                                      .round_up = true,
                                      .keep_value = true});
      // Only where this threshold's value drops: a point no faster than an earlier one of the same
      // threshold (lighter, so sorted before it) could never enter the front.
      double last_value = kInf;
      for (std::size_t m = 0; m < run.value.size(); ++m) {
        if (run.value[m] < last_value) {
          out.push_back({static_cast<double>(m) * quantum + threshold, run.value[m]});
          last_value = run.value[m];
        }
      }
    }
    return out;
  };
  // The thresholds' DPs are independent: contiguous chunks on helper threads, joined in threshold order, so
  // the points (and the front) are the same for any thread count.
  const std::size_t chunks = std::min(thresholds.size(), usable_threads(options.threads));
  std::vector<std::vector<ParetoPoint>> chunk_points(chunks);
  parallel_for(chunks, chunks, [&](std::size_t k) {
    chunk_points[k] = points_of(k * thresholds.size() / chunks, (k + 1) * thresholds.size() / chunks);
  });
  std::vector<ParetoPoint> points;
  for (const std::vector<ParetoPoint>& part : chunk_points)
    points.insert(points.end(), part.begin(), part.end());
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
