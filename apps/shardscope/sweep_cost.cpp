// Sweep point costs: planner choices from each strategy's space, simulator activities from a stand-in
// plan's program (ProgramSize, the count the simulator's own size check uses).
#include "apps/shardscope/sweep_cost.hpp"

#include <algorithm>
#include <exception>

#include "planner/core/valid_scenario.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/program/program_size.hpp"
#include "planner/search/plan_evaluation.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope::cli {
namespace {

// The micro-steps the simulator runs past kSteadyStateAboveSteps before two repeated ones prove the steady
// state.
constexpr std::int64_t kProofSteps = 3;

bool fsdp_like(const OperatorChoice& c) {
  return c.scopes.name() == "GGG" && !c.checkpoint && c.slices == 1 && !c.secondary_parameter_partition;
}

// One strategy's stand-in plan (the FSDP-like choice of each operator that has one among several, else its
// first; only `with_plan`: building it costs more than counting) and the choices its search prices per batch
// size, from one enumeration of each operator's choices.
struct StandIn {
  Plan plan;
  std::int64_t choices = 0;
};
StandIn stand_in(const Scenario& scenario, const Calibration& calibration, const SearchSpace& space,
                 std::int64_t micro_batch, int accumulation, bool with_plan) {
  StandIn out;
  if (with_plan) out.plan = configured_plan(scenario, calibration);
  out.plan.strategy = space.name;
  out.plan.collectives = scenario_collectives(scenario);
  out.plan.micro_batch = micro_batch;
  out.plan.gradient_accumulation_steps = accumulation;
  for (const Operator& op : scenario.model.operators) {
    if (!with_plan) {
      out.choices += count_choices(space, op);
      continue;
    }
    const std::vector<OperatorChoice> choices = enumerate_choices(space, op);
    out.choices += static_cast<std::int64_t>(choices.size());
    const auto fsdp = std::find_if(choices.begin(), choices.end(), fsdp_like);
    out.plan.operators.push_back(fsdp != choices.end() ? *fsdp : choices.front());
  }
  return out;
}

std::int64_t simulated_activities(const ValidScenario& scenario, const Calibration& calibration,
                                  const Plan& plan) {
  const Scenario& s = scenario;
  const IterationProgram program = build_iteration_program(
      scenario, calibration, plan,
      ProgramOptions{s.execution.prefetch_depth, !s.execution.overlap, s.execution.bucket_bytes});
  const CollectiveCost cost(s.cluster, s.training.group_size, calibration,
                            plan_collectives(s.execution, plan));
  const ProgramSize size(program, cost, s.cluster.gpus());
  const std::int64_t steps = program.micro_steps > kSteadyStateAboveSteps ? kProofSteps : program.micro_steps;
  return size.activities(steps);
}

}  // namespace

PointCost estimate_point_cost(const Scenario& scenario, const std::vector<std::string>& strategies,
                              bool simulate) {
  PointCost cost;
  try {
    const ValidScenario valid(scenario);
    const Calibration calibration = scenario_calibration(scenario);
    const TrainingConfig& t = scenario.training;
    const std::int64_t micro_batch = t.micro_batch > 0 ? t.micro_batch : 1;
    const std::int64_t batches = t.micro_batch > 0 ? 1 : std::max<std::int64_t>(1, t.max_micro_batch);
    const int accumulation = std::max(1, accumulation_steps_for(scenario, micro_batch));
    for (const std::string& name : strategies.empty() ? strategy_names() : strategies) {
      const StandIn strategy =
          stand_in(scenario, calibration, space_by_name(name, t), micro_batch, accumulation, simulate);
      cost.planner_choices += strategy.choices * batches;
      if (simulate) cost.simulator_activities += simulated_activities(valid, calibration, strategy.plan);
    }
    cost.known = true;
  } catch (const std::exception&) {
    return PointCost{};  // the point's own run reports what is wrong with it
  }
  return cost;
}

double cost_order_key(const PointCost& cost, bool simulate) {
  if (!cost.known) return -1;
  return static_cast<double>(simulate ? cost.simulator_activities : cost.planner_choices);
}

}  // namespace shardscope::cli
