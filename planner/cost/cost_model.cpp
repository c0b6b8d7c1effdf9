// The cost-model factory: checks the calibration against the (already valid) scenario, builds the model it
// names.
#include "planner/cost/cost_model.hpp"

#include "planner/core/scenario_check.hpp"
#include "planner/cost/paper_cost.hpp"
#include "planner/cost/topology_cost.hpp"

namespace shardscope {

int accumulation_steps_of(const Scenario& scenario, const CostModelOptions& options) {
  return options.accumulation_steps.value_or(scenario.training.gradient_accumulation_steps);
}

std::unique_ptr<CostModel> make_cost_model(const ValidScenario& scenario, const Calibration& calibration,
                                           const CostModelOptions& options) {
  validate_calibration(calibration, scenario);
  // The paper model prices one micro-step per worker: accumulation does not enter it.
  if (scenario.planner.cost_model == CostModelKind::paper) return std::make_unique<PaperCostModel>(scenario);
  return std::make_unique<TopologyCostModel>(scenario, calibration, options);
}

}  // namespace shardscope
