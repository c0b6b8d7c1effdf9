// One batch size's exact search: the knapsack solve, its whole plan, and the bounded search when it
// overflows.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/scenario.hpp"
#include "planner/search/batch_row.hpp"
#include "planner/search/plan_evaluation.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"
#include "planner/search/solvers/mckp.hpp"

namespace shardscope {

// The smallest peak any selection of the problem has (per transient threshold, the lightest items within it).
double minimum_peak(const McProblem& p);

// What one batch size's solve found; picks index each class's items when solved.
struct BatchOutcome {
  BatchStatus status = BatchStatus::does_not_fit;
  std::vector<int> picks;
  double seconds = std::numeric_limits<double>::infinity();
  double lower_bound_seconds = 0;
  double lp_seconds = std::numeric_limits<double>::infinity();  // per-operator spaces: the batch's LP bound
  bool bounded = false;  // per-operator spaces: the smallest peak fits, so lp_seconds was computed
  std::int64_t solver_cells = 0;
};

// Per-operator strategy: the exact knapsack, skipped (pruned) when the LP bound cannot beat best_throughput.
BatchOutcome solve_per_operator(const PlanInstance& inst, double best_throughput);

// One search of one batch size: its instance, its solve (pruned only against a throughput the scan had
// already reached when the work started, so the scan's own decision can only prune more, never less) and,
// when solved, its whole plan.
struct InstanceSolve {
  PlanInstance inst;
  BatchOutcome outcome;
  WholePlan whole_plan;
};

// One batch size's work, independent of the other batch sizes: the search with neighbours' buffers counted
// as alike and, when that pick's whole plan holds more than the memory limit, the search again under the
// bound that holds whatever neighbours choose (NeighbourBuffers::any_choice); for the first batch size also
// the smallest memory any plan needs (what the bounded search can promise: at this limit it finds a plan).
struct BatchWork {
  InstanceSolve alike;
  std::optional<InstanceSolve> any_choice;
  double minimum_memory_bytes = std::numeric_limits<double>::infinity();  // first batch size only
};

BatchWork work_batch(const ValidScenario& scenario, const Calibration& calibration, const SearchSpace& space,
                     TrainingStep step, double best_known, bool first);

// The scan's own pruning, against every batch size before this one: turns a per-operator outcome found
// against a lower throughput into what solve_per_operator would return against `best_throughput`.
void prune_as_scan(const SearchSpace& space, const PlanInstance& inst, BatchOutcome& outcome,
                   double best_throughput);

}  // namespace shardscope
