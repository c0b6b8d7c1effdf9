// The plan search as a multiple-choice knapsack with a max term: pick one item per class to minimise
// total seconds subject to sum(resident) + max(transient) <= capacity. Shared by every solver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "planner/cost/item_cost.hpp"

namespace shardscope {

// One item of a class: an operator choice's ItemCost (seconds, resident bytes, transient bytes).
using McItem = ItemCost;

struct McProblem {
  std::vector<std::vector<McItem>> classes;  // one class per operator
  double capacity_bytes = 0;                 // memory limit minus fixed reserve
};

struct McSolution {
  bool feasible = false;
  std::vector<int> picks;          // item index per class
  double seconds = 0;              // objective of `picks`
  double peak_bytes = 0;           // sum resident + max transient of `picks`
  double lower_bound_seconds = 0;  // proven lower bound on the optimum (== seconds when exact)
  std::int64_t explored = 0;       // nodes / cells / combinations the solver visited
  bool complete = true;            // false when a reference solver hit its limit
};

// Peak memory and seconds of a given selection.
double selection_peak_bytes(const McProblem& problem, const std::vector<int>& picks);
double selection_seconds(const McProblem& problem, const std::vector<int>& picks);

// The distinct transient sizes of all items, ascending: the candidate values of the peak's max term.
std::vector<double> transient_thresholds(const McProblem& problem);

// Removes items dominated in (seconds, resident, transient) and duplicates; returns, per class, the
// original indices of the kept items (the problem's classes are rewritten in place).
std::vector<std::vector<int>> remove_dominated(McProblem& problem);

// The classes whose item lists are identical (repeated layers), each group ascending, groups ordered by their
// first class.
std::vector<std::vector<std::size_t>> identical_class_groups(const McProblem& problem);

// For each class, the first class with the same item list (itself when none comes before): repeated layers
// share one representative, so per-class work can be done once per representative.
std::vector<std::size_t> class_representatives(const McProblem& problem);

// The lower-left convex hull of one class's items with transient <= threshold, as item indices by ascending
// resident bytes (seconds strictly decreasing, slopes strictly flattening); empty when no item qualifies.
std::vector<int> lower_hull(const std::vector<McItem>& items, double transient_threshold);

// LP relaxation lower bound (convex hull + greedy by slope) of min sum seconds s.t. sum resident <= capacity,
// over items with transient <= threshold. Returns +inf when even the lightest items do not fit.
double lp_lower_bound(const McProblem& problem, double transient_threshold, double capacity_bytes);

// lp_lower_bound(problem, t, problem.capacity_bytes - t) for each t of `thresholds` (the same numbers),
// with one hull per group of identical classes.
std::vector<double> lp_bounds_by_threshold(const McProblem& problem, const std::vector<double>& thresholds);

struct DpOptions {
  int bins = 16384;  // memory quantisation: capacity / bins bytes per bin
  // Up to this many classes the rounded-up DP rounds each class on its own (exact in the quantised model,
  // rounding at most classes / bins of the capacity). Beyond it each group of identical classes enters the
  // DP as power-of-two blocks (1, 2, 4, ..., rest) whose members take the same item, rounded once per block,
  // and the LP greedy plan is an incumbent: rounding no longer grows with the operator count.
  std::size_t max_single_classes = 256;
  // Thresholds whose LP bound is within this fraction of the incumbent are not solved by DP: they could
  // improve the plan by at most this much, and their LP bound enters the certified lower bound.
  double lp_certify_gap = 2e-3;
  // pareto_front runs its thresholds' DPs on up to this many threads (0: one per hardware thread); the front
  // is the same for any count.
  int threads = 0;
};
// Exact for the memory-quantised model with weights rounded up (a feasible plan: upper bound) and rounded
// down (a proven lower bound); the peak max-term handled by enumerating the largest transient. Feasible
// exactly when some plan fits in exact bytes (when rounding leaves the DP no plan, the LP greedy plan is
// returned), for any number of classes.
McSolution solve_dp(const McProblem& problem, const DpOptions& options = {});
// The same with the LP bounds already computed: `lp_bounds[i]` is lp_bounds_by_threshold's value at
// `thresholds[i]`, thresholds == transient_thresholds(problem).
McSolution solve_dp(const McProblem& problem, const DpOptions& options, const std::vector<double>& thresholds,
                    const std::vector<double>& lp_bounds);

// Pareto front (peak bytes, seconds) over all thresholds, from the rounded-up DP's value function.
struct ParetoPoint {
  double peak_bytes = 0;
  double seconds = 0;
};
std::vector<ParetoPoint> pareto_front(const McProblem& problem, const DpOptions& options = {},
                                      int max_points = 64);

// Greedy rounding of the LP relaxation, for every transient threshold: from each class's lightest item, whole
// hull steps in order of seconds saved per byte while they fit (a class stops at its first step that does
// not). Feasible exactly when some plan fits in exact bytes; near-optimal when there are many classes.
McSolution solve_lp_greedy(const McProblem& problem);

// The OSDP paper's depth-first search with its two prunings (memory over the limit, time over the best).
McSolution solve_dfs(const McProblem& problem, std::int64_t node_limit = INT64_MAX,
                     double seconds_limit = 1e300);

// Enumerates every combination (small instances only).
McSolution solve_brute_force(const McProblem& problem);

}  // namespace shardscope
