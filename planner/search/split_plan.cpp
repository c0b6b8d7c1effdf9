// The split-operator study plan, built from ZeRO-3's plan (see split_plan.hpp).
#include "planner/search/split_plan.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardscope {

Plan split_plan(const Scenario& scenario, const Plan& zero3) {
  int slices = 1;
  for (int g : scenario.training.slice_granularities) {
    if (g <= 4) slices = std::max(slices, g);
  }
  if (slices < 2)
    throw std::invalid_argument("strategy 'split': the scenario allows no slice granularity 2..4");
  Plan plan = zero3;
  plan.strategy = "split";
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    if (!scenario.model.operators[i].splittable || scenario.model.operators[i].forward_gemms.empty())
      continue;
    OperatorChoice& choice = plan.operators[i];
    choice.slices = slices;
    choice.sharded_slices = slices / 2;
  }
  return plan;
}

}  // namespace shardscope
