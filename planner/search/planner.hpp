// Planner: for a scenario and a search space, scan batch sizes, solve each exactly, keep the best throughput.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/program/exposure.hpp"
#include "planner/search/batch_row.hpp"
#include "planner/search/plan_observer.hpp"
#include "planner/search/search_space.hpp"
#include "planner/search/solvers/mckp.hpp"

namespace shardscope {

// What the cost model charges one operator of a plan: its time and knapsack weights, and memory by category.
struct OperatorCost {
  ItemCost cost;
  MemoryBreakdown memory;
};

struct StrategyResult {
  std::string strategy;
  bool fits = false;
  Plan plan;  // valid when fits
  // The search prices each operator as if its predecessor made the same choice (CostModel::cost), which keeps
  // it separable and exact: the bound and the objective below are of that model. The plan's prediction
  // prices its real neighbours (cost_after).
  double lower_bound_seconds = 0;  // certified lower bound on the search's objective at the plan's batch
  double search_seconds = 0;       // the search's objective for its pick
  // Set when a baseline's plan, priced in sequence, beat the search's pick and became the plan (the pick's
  // own prediction is kept beside it).
  std::string adopted_from;
  PlanPrediction search_pick;
  double shortfall_bytes = 0;       // when it does not fit: how much memory the smallest plan lacks at b = 1
  double minimum_memory_bytes = 0;  // smallest peak memory any plan of this space needs at b = 1
  std::vector<BatchRow> batches;
  std::int64_t solver_cells = 0;
  std::vector<OperatorCost> operator_costs;  // when it fits: one per operator of `plan`, in model order
  // When it fits and the model schedules plans: the plan's peak of allocated tensors
  // (program_allocated_peak_bytes; plan.predicted.peak_memory_bytes is the reserved peak); 0 otherwise.
  double allocated_peak_bytes = 0;
  // When it fits and the model schedules plans: each collective's time and the part of it the compute
  // stream waits for (program_exposure); empty otherwise.
  ProgramExposure communication;
};

struct PlanReport {
  StrategyResult best;  // the product's full space
  // Under BatchPolicy::equal each baseline is its best plan at best's micro-batch and accumulation steps
  // (not fitting there: its shortfall at that batch); under own, its best plan over the whole scan.
  BatchPolicy batch_policy = BatchPolicy::own;
  std::vector<StrategyResult> baselines;
  std::vector<ParetoPoint> pareto;  // at best's batch size; peak memory includes the runtime reserve
  // When asked for (PlanRequest::candidate_plans): the fastest distinct plans by prediction, fastest first,
  // from the search's pick at each batch size and every fitting baseline; each records its configuration.
  std::vector<Plan> candidates;
  // The calibration's prediction_error, for the stated uncertainty (report/uncertainty.hpp).
  std::optional<CalibrationPredictionError> calibration_error;
};

// How a search runs: who watches it and how many threads may work at once (0: one per hardware thread; 1:
// only the calling thread). The result and the observer's calls are the same for every thread count: batch
// sizes are solved ahead and strategies side by side, and the scan's decisions and reports are replayed in
// order. With an observer: reports the strategy, each batch row and the progress, and throws PlanCancelled at
// the next batch boundary once observer->cancelled() is true.
struct SearchOptions {
  PlanObserver* observer = nullptr;
  int threads = 0;
};

// What plan_scenario computes besides the product's plan, and how it searches.
struct PlanRequest {
  bool with_baselines = true;
  std::size_t candidate_plans = 0;  // how many PlanReport::candidates to keep (0: none)
  // Constraints on the product's plan (not on the baselines): each pinned operator takes only choices its
  // pins admit, and the plan is the fastest among those; a baseline's plan is adopted only when it honours
  // them.
  std::vector<OperatorPin> pins;
  SearchOptions search;
  // The product's plan in this space instead of product_space (a framework's strategy, as `reproduce` plans
  // a published row's pipeline stages).
  std::optional<SearchSpace> product;
};

// Scans the scenario's batch sizes for one space.
StrategyResult plan_strategy(const ValidScenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, const SearchOptions& options = {});
// The product's space, then (with_baselines) each baseline the cost model supports, then the Pareto front;
// the observer sees the strategies in that order, and the progress covers all of them.
PlanReport plan_scenario(const ValidScenario& scenario, const Calibration& calibration,
                         const PlanRequest& request = {});

// The collectives every strategy's plans use, one library for the whole comparison: planned_collectives of
// the scenario's execution.collectives under the topology model; the paper model prices its own alpha-beta,
// recorded as rings.
CollectiveModel scenario_collectives(const Scenario& scenario);

// Whether two plans make the same choices: micro-batch, accumulation steps and every operator's choice.
bool same_plan_choices(const Plan& a, const Plan& b);

// What the cost model charges each operator of `plan` (time, knapsack weights, memory by category), in model
// order: the report's operator_costs for a plan chosen outside the search (a refined candidate).
std::vector<OperatorCost> plan_operator_costs(const ValidScenario& scenario, const Calibration& calibration,
                                              const Plan& plan);

// Gradient accumulation steps for a micro-batch: the scenario's fixed value, or derived from its global batch
// (0 when micro-batch x GPUs does not divide the global batch, or would need more than
// kMaxAccumulationSteps).
int accumulation_steps_for(const Scenario& scenario, std::int64_t micro_batch);

// The planner's prediction for a given plan (iteration time and peak memory per GPU, reserve included).
// Throws InputError when the plan was made for another configuration or breaks the scenario's space
// (check_plan_configuration), and PlanDoesNotFit (with the peak, the limit and the excess) when its peak is
// over the memory limit. Every consumer of a plan file goes through here before using it.
PlanPrediction evaluate_plan(const ValidScenario& scenario, const Calibration& calibration, const Plan& plan);

// One iteration as the planner prices it: micro-batch per GPU and micro-steps per optimizer step.
struct TrainingStep {
  std::int64_t micro_batch = 1;
  int accumulation_steps = 1;
};

// The space of the product's plan: OSDP's (with splitting) under the paper cost model, else the full space;
// a pipeline stage whose runtime shards optimizer states only keeps its parameter and gradient scopes N.
SearchSpace product_space(const Scenario& scenario);

// How device_front takes a front: how many points it keeps (evenly thinned beyond), on how many threads, and
// whether operators' bytes are rounded at the quantum the search uses at the memory limit (at most 16 times
// finer than the device's memory / DpOptions::bins, the default).
struct FrontOptions {
  int max_points = 64;
  bool quantum_of_limit = false;
  int threads = 0;
};
struct DeviceFront {
  std::vector<ParetoPoint> points;  // peaks with the runtime reserve, up to the device's memory
  double samples_per_iteration = 0;
};
// The Pareto front (peak memory, search objective) of `space` at one training step, up to the device's
// memory (the rounded-up DP's value function); no points when the fixed bytes alone exceed the device.
DeviceFront device_front(const ValidScenario& scenario, const Calibration& calibration,
                         const SearchSpace& space, TrainingStep step, const FrontOptions& options);

// Builds the knapsack instance of one space at one batch size (for benchmarks, tests and the Pareto front).
struct PlanInstance {
  McProblem problem;
  std::vector<std::vector<OperatorChoice>>
      choices;  // per class, aligned with problem.classes after filtering
  double fixed_bytes = 0;
  double samples_per_iteration = 0;
};
// Items' transients count neighbours' buffers as `neighbours` says (cost_model.hpp): `alike` is the
// search's estimate (its pick's whole-plan peak is then checked), `any_choice` a bound that every pick meets.
PlanInstance build_instance(const ValidScenario& scenario, const Calibration& calibration,
                            const SearchSpace& space, TrainingStep step,
                            NeighbourBuffers neighbours = NeighbourBuffers::alike);
// The same at the scenario's own gradient_accumulation_steps.
PlanInstance build_instance(const ValidScenario& scenario, const Calibration& calibration,
                            const SearchSpace& space, std::int64_t micro_batch);

}  // namespace shardscope
