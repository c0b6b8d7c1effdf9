// The cost-model factory: validates the scenario once, then builds the model it names.
#include "planner/cost/cost_model.hpp"

#include "planner/core/scenario_check.hpp"
#include "planner/cost/paper_cost.hpp"
#include "planner/cost/topology_cost.hpp"

namespace shardscope {

std::unique_ptr<CostModel> make_cost_model(const Scenario& scenario, const Calibration& calibration) {
  return make_cost_model(scenario, calibration, scenario.training.gradient_accumulation_steps);
}

std::unique_ptr<CostModel> make_cost_model(const Scenario& scenario, const Calibration& calibration,
                                           int accumulation_steps, CollectiveModel collectives) {
  validate_scenario(scenario);  // no model divides by an unresolved group size or a zero bandwidth
  validate_calibration(calibration, scenario);
  // The paper model prices one micro-step per worker: accumulation does not enter it.
  if (scenario.planner.cost_model == CostModelKind::paper) return std::make_unique<PaperCostModel>(scenario);
  return std::make_unique<TopologyCostModel>(scenario, calibration, accumulation_steps, collectives);
}

}  // namespace shardscope
