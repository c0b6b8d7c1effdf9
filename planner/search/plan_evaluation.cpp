// Pricing a given plan: its schedule and peak, the per-operator costs, and the memory-limit check.
#include "planner/search/plan_evaluation.hpp"

#include <memory>
#include <string>

#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/units.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/program/memory_peak.hpp"
#include "planner/program/schedule.hpp"
#include "planner/search/plan_check.hpp"

namespace shardscope {
namespace {

// Each operator's cost under the search's model.
std::vector<ItemCost> operator_item_costs(const CostModel& model, const std::vector<OperatorChoice>& choices,
                                          std::int64_t micro_batch) {
  std::vector<ItemCost> out;
  out.reserve(choices.size());
  for (std::size_t i = 0; i < choices.size(); ++i) out.push_back(model.cost(i, choices[i], micro_batch));
  return out;
}

// Throws PlanDoesNotFit when `peak_bytes` is over the memory limit (the search's own test: a plan fits when
// its peak is at most the limit; a relative 1e-12 absorbs the rounding of adding the fixed bytes).
void check_plan_fits(const Plan& plan, const Scenario& scenario, double peak_bytes) {
  const double limit = static_cast<double>(scenario.training.memory_limit_bytes);
  if (peak_bytes <= limit * (1 + 1e-12)) return;
  const double device = static_cast<double>(scenario.cluster.gpu.memory_bytes);
  const std::string where = plan.source.file.empty() ? "plan '" + plan.strategy + "'" : plan.source.file;
  std::string message = where + ": the plan needs " + units::format_bytes(peak_bytes) +
                        " per GPU at its peak, over the memory limit of " + units::format_bytes(limit) +
                        " by " + units::format_bytes(peak_bytes - limit);
  if (peak_bytes > device) {
    message += " (and over the device's " + units::format_bytes(device) + " by " +
               units::format_bytes(peak_bytes - device) + ")";
  }
  throw PlanDoesNotFit(message + "; re-plan with `shardscope plan --out` for this scenario", peak_bytes,
                       limit);
}

// How the cost model prices a given plan: at its accumulation steps, its collectives by the library it
// records.
CostModelOptions plan_cost_options(const Scenario& scenario, const Plan& plan) {
  CostModelOptions options;
  options.accumulation_steps = plan.gradient_accumulation_steps;
  options.collectives = plan_collectives(scenario.execution, plan);
  return options;
}

// The plan's iteration program under the scenario's execution options.
IterationProgram plan_program(const ValidScenario& scenario, const Calibration& calibration,
                              const Plan& plan) {
  return build_iteration_program(scenario, calibration, plan, program_options(scenario.execution));
}

// Its collectives' prices, by the library the plan records.
CollectiveCost plan_collective_cost(const ValidScenario& scenario, const Calibration& calibration,
                                    const Plan& plan) {
  return CollectiveCost(scenario.cluster, scenario.training.group_size, calibration,
                        plan_collectives(scenario.execution, plan));
}

}  // namespace

WholePlan scheduled_plan(const ValidScenario& scenario, const Calibration& calibration, const Plan& plan) {
  const IterationProgram program = plan_program(scenario, calibration, plan);
  return {schedule_program(program, plan_collective_cost(scenario, calibration, plan)).iteration_seconds,
          program_peak_bytes(program)};
}

bool schedules_plans(const Scenario& scenario) {
  return scenario.planner.cost_model == CostModelKind::topology;
}

double plan_allocated_peak_bytes(const ValidScenario& scenario, const Calibration& calibration,
                                 const Plan& plan) {
  if (!schedules_plans(scenario)) return 0;
  return program_allocated_peak_bytes(plan_program(scenario, calibration, plan));
}

PlanProgramFigures plan_program_figures(const ValidScenario& scenario, const Calibration& calibration,
                                        const Plan& plan) {
  if (!schedules_plans(scenario)) return {};
  const IterationProgram program = plan_program(scenario, calibration, plan);
  return {program_allocated_peak_bytes(program),
          program_exposure(program, plan_collective_cost(scenario, calibration, plan))};
}

double plan_forward_share(const ValidScenario& scenario, const Calibration& calibration, const Plan& plan) {
  if (!schedules_plans(scenario)) return 1.0 / 3;
  const IterationProgram program = plan_program(scenario, calibration, plan);
  double forward = 0, all = 0;
  for (std::size_t i = 0; i < program.step_tasks; ++i) {
    const Task& task = program.tasks[i];
    if (task.stream != Task::Stream::compute) continue;
    all += task.compute_seconds;
    if (task.phase == Task::Phase::forward) forward += task.compute_seconds;
  }
  return all > 0 ? forward / all : 1.0 / 3;
}

std::vector<OperatorChoice> picked_choices(const PlanInstance& inst, const std::vector<int>& picks) {
  std::vector<OperatorChoice> out;
  out.reserve(picks.size());
  for (std::size_t c = 0; c < picks.size(); ++c)
    out.push_back(inst.choices[c][static_cast<std::size_t>(picks[c])]);
  return out;
}

Plan make_plan(const Scenario& scenario, const SearchSpace& space, const PlanInstance& inst,
               const std::vector<int>& picks, const BatchRow& row) {
  Plan plan;
  plan.strategy = space.name;
  plan.collectives = scenario_collectives(scenario);
  plan.micro_batch = row.micro_batch;
  plan.gradient_accumulation_steps = row.gradient_accumulation_steps;
  plan.operators = picked_choices(inst, picks);
  plan.predicted.iteration_seconds = row.iteration_seconds;
  plan.predicted.samples_per_second = row.samples_per_second;
  plan.predicted.tokens_per_second =
      row.samples_per_second * static_cast<double>(scenario.model.sequence_length);
  plan.predicted.peak_memory_bytes = row.peak_memory_bytes;
  return plan;
}

void copy_plan_configuration(Plan& plan, const Plan& configured) {
  plan.model_digest = configured.model_digest;
  plan.group_size = configured.group_size;
  plan.precision = configured.precision;
  plan.sequence_length_tokens = configured.sequence_length_tokens;
  plan.cost_model = configured.cost_model;
  plan.tensor = configured.tensor;
  plan.scenario_digest = configured.scenario_digest;
  plan.calibration_digest = configured.calibration_digest;
}

Plan configured_plan(const Scenario& scenario, const Calibration& calibration) {
  Plan configured;
  record_plan_configuration(configured, scenario, calibration);
  return configured;
}

CollectiveModel scenario_collectives(const Scenario& scenario) {
  return scenario.planner.cost_model == CostModelKind::topology ? planned_collectives(scenario.execution)
                                                                : CollectiveModel::ring;
}

PlanPrediction evaluate_plan(const ValidScenario& scenario, const Calibration& calibration,
                             const Plan& plan) {
  (void)check_plan_configuration(plan, scenario, calibration);  // callers that show warnings check first
  const std::unique_ptr<CostModel> model =
      make_cost_model(scenario, calibration, plan_cost_options(scenario, plan));
  McProblem problem;
  std::vector<int> picks;
  PlanPrediction out;
  for (const ItemCost& c : operator_item_costs(*model, plan.operators, plan.micro_batch)) {
    problem.classes.push_back({{c.seconds, c.resident_bytes, c.transient_bytes}});
    picks.push_back(0);
    out.iteration_seconds += c.seconds;
  }
  out.peak_memory_bytes = selection_peak_bytes(problem, picks) + model->fixed_bytes();
  if (schedules_plans(scenario)) {
    const WholePlan whole_plan = scheduled_plan(scenario, calibration, plan);
    out.iteration_seconds = whole_plan.seconds;
    out.peak_memory_bytes = whole_plan.peak_bytes;
  }
  out.samples_per_second = model->samples_per_iteration(plan.micro_batch) / out.iteration_seconds;
  out.tokens_per_second = out.samples_per_second * static_cast<double>(scenario.model.sequence_length);
  check_plan_fits(plan, scenario, out.peak_memory_bytes);
  return out;
}

std::vector<OperatorCost> plan_operator_costs(const ValidScenario& scenario, const Calibration& calibration,
                                              const Plan& plan) {
  const std::unique_ptr<CostModel> model =
      make_cost_model(scenario, calibration, plan_cost_options(scenario, plan));
  const std::vector<ItemCost> costs = operator_item_costs(*model, plan.operators, plan.micro_batch);
  std::vector<OperatorCost> out;
  out.reserve(costs.size());
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    out.push_back({costs[i], model->memory(i, plan.operators[i], plan.micro_batch)});
  }
  return out;
}

}  // namespace shardscope
