// ValidScenario: the one place a scenario is checked before the planner and the simulator use it.
#include "planner/core/valid_scenario.hpp"

#include <utility>

#include "planner/core/scenario_check.hpp"

namespace shardscope {
namespace {

std::shared_ptr<const Scenario> checked(Scenario scenario) {
  validate_scenario(scenario);
  return std::make_shared<const Scenario>(std::move(scenario));
}

}  // namespace

ValidScenario::ValidScenario(Scenario scenario)
    : scenario_(checked(std::move(scenario))),
      name(scenario_->name),
      source_file(scenario_->source_file),
      model(scenario_->model),
      cluster(scenario_->cluster),
      training(scenario_->training),
      planner(scenario_->planner),
      execution(scenario_->execution) {}

std::shared_ptr<const std::vector<Operator>> ValidScenario::operators() const {
  return {scenario_, &scenario_->model.operators};  // aliasing: owns the scenario, points at its operators
}

}  // namespace shardscope
