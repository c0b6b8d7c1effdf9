// Default resolution and validation of a Scenario, however it was made (parser, GUI, test code).
#pragma once

#include <string>
#include <vector>

#include "planner/core/scenario.hpp"

namespace shardscope {

// One problem found in a scenario: the dotted field path (as in the YAML file) and what was expected.
struct ScenarioIssue {
  std::string field;  // e.g. "training.group_size"
  std::string message;
};

// Fills the fields whose 0 means "the default": group_size (GPUs per node), memory_limit (device
// capacity), name (the model's). Idempotent.
void resolve_defaults(Scenario& scenario);

// Every violated invariant, most fundamental first (cluster, model, training, planner). An empty list
// means every planner and simulator entry point can use the scenario without a division by zero.
std::vector<ScenarioIssue> scenario_issues(const Scenario& scenario);

// Throws InputError(source_file, 0, field, message) for the first issue. Called by every entry point.
void validate_scenario(const Scenario& scenario);

}  // namespace shardscope
