// Planner: plan_strategy and plan_scenario over the batch scans, baselines, Pareto front and candidates.
#include "planner/search/planner.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "planner/core/scenario_check.hpp"
#include "planner/search/baseline_scans.hpp"
#include "planner/search/batch_scan.hpp"
#include "planner/search/candidates.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/plan_evaluation.hpp"
#include "planner/search/scan_events.hpp"
#include "planner/search/task_pool.hpp"

namespace shardscope {
namespace {

// The baselines the scenario's cost model supports, after `spaces`.
void append_baselines(const Scenario& scenario, std::vector<SearchSpace>& spaces) {
  const bool paper = scenario.planner.cost_model == CostModelKind::paper;
  for (SearchSpace& space : baseline_spaces(scenario.training)) {
    const bool paper_only_scopes =
        space.scopes.size() <= 2 &&
        std::all_of(space.scopes.begin(), space.scopes.end(),
                    [](const Scopes& s) { return s.name() == "NNN" || s.name() == "GGG"; }) &&
        !space.secondary_parameter_partition;
    if (paper && !paper_only_scopes) continue;  // the paper model knows only DP and ZDP
    spaces.push_back(std::move(space));
  }
}

// The spaces plan_scenario scans, in order: the product's (or the request's), then the baselines the cost
// model supports; a stage that shards optimizer states only runs each with its parameters and gradients
// whole.
std::vector<SearchSpace> scenario_spaces(const Scenario& scenario, const PlanRequest& request) {
  std::vector<SearchSpace> spaces{request.product ? *request.product : product_space(scenario)};
  if (request.with_baselines) append_baselines(scenario, spaces);
  if (stage_shards_optimizer_only(scenario))
    for (SearchSpace& space : spaces) keep_optimizer_sharding_only(space);
  return spaces;
}

// The full space holds every baseline's plan, so the product never reports a slower one: when a baseline's
// whole plan (scheduled_plan) beats the search's pick (whose objective assumed alike neighbours), it
// becomes the plan, named as such.
void adopt_faster_baseline(PlanReport& report, const std::vector<OperatorPin>& pins) {
  if (!report.best.fits) return;
  const StrategyResult* faster = nullptr;
  double best = report.best.plan.predicted.samples_per_second;
  for (const StrategyResult& b : report.baselines) {
    if (b.fits && b.plan.predicted.samples_per_second > best && plan_honours_pins(pins, b.plan.operators)) {
      best = b.plan.predicted.samples_per_second;
      faster = &b;
    }
  }
  if (faster == nullptr) return;
  report.best.adopted_from = faster->strategy;
  report.best.search_pick = report.best.plan.predicted;
  report.best.plan.operators = faster->plan.operators;
  report.best.plan.collectives = faster->plan.collectives;
  report.best.plan.micro_batch = faster->plan.micro_batch;
  report.best.plan.gradient_accumulation_steps = faster->plan.gradient_accumulation_steps;
  report.best.plan.predicted = faster->plan.predicted;
  report.best.operator_costs = faster->operator_costs;
  report.best.allocated_peak_bytes = faster->allocated_peak_bytes;
  report.best.communication = faster->communication;
}

// BatchPolicy::equal: every baseline re-planned at the plan's micro-batch and accumulation steps (a baseline
// that does not fit there reports its shortfall at that batch). A baseline faster than the plan at the same
// batch (one its own scan pruned) is adopted, so the plan stays at least as fast as every baseline shown.
void compare_at_equal_batch(PlanReport& report, const ValidScenario& scenario, const Calibration& calibration,
                            const std::vector<SearchSpace>& spaces, const Plan& configured,
                            const ProgressMeter& meter) {
  report.batch_policy = BatchPolicy::equal;
  if (!report.best.fits) return;  // no plan, no batch to compare at: the baselines keep their own scans
  CancellationOnly quiet(meter.observer());
  Scenario fixed = scenario;
  fixed.training.micro_batch = report.best.plan.micro_batch;
  fixed.training.gradient_accumulation_steps = report.best.plan.gradient_accumulation_steps;
  const ValidScenario at_plan(std::move(fixed));  // a plan's own step: checked like any other scenario
  for (std::size_t index = 1; index < spaces.size(); ++index) {
    meter.check_cancelled();
    ProgressMeter phase(quiet, 1);
    // Recorded against the scenario as given (its micro-batch may be free), as the plan is: `configured`.
    report.baselines[index - 1] =
        scan_strategy(at_plan, calibration, spaces[index], {report.best.plan.micro_batch}, configured, phase);
  }
  adopt_faster_baseline(report, spaces.front().pins);
}

// The report's front: at most 64 points, at the device's quantum.
std::vector<ParetoPoint> pareto_points(const ValidScenario& scenario, const Calibration& calibration,
                                       const SearchSpace& space, TrainingStep step, std::size_t threads) {
  FrontOptions options;
  options.threads = static_cast<int>(threads);
  return device_front(scenario, calibration, space, step, options).points;
}

}  // namespace

SearchSpace product_space(const Scenario& scenario) {
  if (scenario.planner.cost_model == CostModelKind::paper) return osdp_space(scenario.training, true);
  SearchSpace space = full_space(scenario.training);
  if (stage_shards_optimizer_only(scenario)) keep_optimizer_sharding_only(space);
  return space;
}

DeviceFront device_front(const ValidScenario& scenario, const Calibration& calibration,
                         const SearchSpace& space, TrainingStep step, const FrontOptions& front) {
  PlanInstance inst = build_instance(scenario, calibration, space, step);
  const double device = static_cast<double>(scenario.cluster.gpu.memory_bytes);
  inst.problem.capacity_bytes = device - inst.fixed_bytes;
  DeviceFront out;
  out.samples_per_iteration = inst.samples_per_iteration;
  if (inst.problem.capacity_bytes <= 0) return out;
  DpOptions options;
  options.threads = front.threads;
  const double limit_capacity = static_cast<double>(scenario.training.memory_limit_bytes) - inst.fixed_bytes;
  if (front.quantum_of_limit && limit_capacity > 0) {
    const double scale = std::min(16.0, std::max(1.0, inst.problem.capacity_bytes / limit_capacity));
    options.bins = static_cast<int>(std::ceil(options.bins * scale));
  }
  for (ParetoPoint p : pareto_front(inst.problem, options, front.max_points)) {
    p.peak_bytes += inst.fixed_bytes;
    out.points.push_back(p);
  }
  return out;
}

StrategyResult plan_strategy(const ValidScenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, const SearchOptions& options) {
  PlanObserver* observer = options.observer;
  const int threads = options.threads;
  const std::vector<std::int64_t> micro_batches = batch_candidates(scenario);
  ProgressMeter meter(observer_or_default(observer), micro_batches.size());
  meter.check_cancelled();
  meter.observer().strategy_started(space.name, 0, 1);
  StrategyResult result =
      scan_strategy(scenario, calibration, space, micro_batches, configured_plan(scenario, calibration),
                    meter, ScanOptions{usable_threads(threads), 0, nullptr});
  meter.finish();
  return result;
}

PlanReport plan_scenario(const ValidScenario& scenario, const Calibration& calibration,
                         const PlanRequest& request) {
  PlanObserver* observer = request.search.observer;
  const int threads = request.search.threads;
  std::vector<SearchSpace> spaces = scenario_spaces(scenario, request);
  spaces.front().pins = request.pins;
  const std::vector<std::int64_t> micro_batches = batch_candidates(scenario);
  const Plan configured = configured_plan(scenario, calibration);  // digests once, not once per strategy
  // One unit per batch size of every strategy, and one for the Pareto front.
  ProgressMeter meter(observer_or_default(observer), spaces.size() * micro_batches.size() + 1);
  PlanReport report;
  report.calibration_error = calibration.prediction_error;
  meter.check_cancelled();
  BaselineScans workers(scenario, calibration, spaces, micro_batches, configured, usable_threads(threads));
  meter.observer().strategy_started(spaces[0].name, 0, static_cast<int>(spaces.size()));
  // (A cancel here leaves through ~BaselineScans, which stops the scans and waits for them.)
  std::vector<Plan> per_batch;  // the search's pick at its fastest batch sizes, for the candidates
  report.best = scan_strategy(scenario, calibration, spaces[0], micro_batches, configured, meter,
                              ScanOptions{usable_threads(threads), request.candidate_plans, &per_batch});
  // The front at the search's own pick, while the baselines run; recomputed below only when a baseline's
  // plan is adopted at another batch size.
  std::vector<ParetoPoint> pareto;
  TrainingStep pareto_step;
  if (report.best.fits) {
    pareto_step = {report.best.plan.micro_batch, report.best.plan.gradient_accumulation_steps};
    pareto = pareto_points(scenario, calibration, spaces.front(), pareto_step, usable_threads(threads));
  }
  for (std::size_t index = 1; index < spaces.size(); ++index) {
    workers.stop_if_cancelled(meter);
    meter.observer().strategy_started(spaces[index].name, static_cast<int>(index),
                                      static_cast<int>(spaces.size()));
    report.baselines.push_back(workers.take(index, spaces[index].name, meter));
  }
  adopt_faster_baseline(report, request.pins);
  if (scenario.training.batch_policy == BatchPolicy::equal) {
    compare_at_equal_batch(report, scenario, calibration, spaces, configured, meter);
  }
  if (request.candidate_plans > 0) {
    std::vector<Plan> alternatives;
    if (report.best.fits)
      alternatives = alternative_plans(scenario, calibration, spaces.front(), report.best.plan, configured);
    report.candidates = candidate_plans(report, std::move(per_batch), std::move(alternatives),
                                        request.candidate_plans, configured);
  }
  meter.check_cancelled();
  if (report.best.fits) {
    // At the best plan's batch size, with the curve shown up to the device's memory.
    const Plan& best = report.best.plan;
    if (best.micro_batch != pareto_step.micro_batch ||
        best.gradient_accumulation_steps != pareto_step.accumulation_steps) {
      pareto = pareto_points(scenario, calibration, spaces.front(),
                             TrainingStep{best.micro_batch, best.gradient_accumulation_steps},
                             usable_threads(threads));
    }
    report.pareto = std::move(pareto);
  }
  meter.finish();
  return report;
}

}  // namespace shardscope
