// The cost-model factory: validates the scenario once, then builds the model it names.
#include "planner/cost/cost_model.hpp"

#include "planner/core/scenario_check.hpp"
#include "planner/cost/paper_cost.hpp"
#include "planner/cost/topology_cost.hpp"

namespace shardscope {

std::unique_ptr<CostModel> make_cost_model(const Scenario& scenario, const Calibration& calibration) {
  validate_scenario(scenario);  // no model divides by an unresolved group size or a zero bandwidth
  if (scenario.planner.cost_model == CostModelKind::paper) return std::make_unique<PaperCostModel>(scenario);
  return std::make_unique<TopologyCostModel>(scenario, calibration);
}

}  // namespace shardscope
