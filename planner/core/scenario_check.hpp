// Default resolution and validation of a Scenario, however it was made (parser, GUI, test code).
#pragma once

#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
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

// Every calibration value out of its range or at odds with the scenario (a runtime reserve at or above the
// memory limit, as training.runtime_reserve is checked), with fields named as in the calibration file
// ("runtime_reserve", "links.nvlink.bandwidth", "message_efficiency[1].factor").
std::vector<ScenarioIssue> calibration_issues(const Calibration& calibration, const Scenario& scenario);

// Throws InputError(calibration.source_file, 0, field, message) for the first issue. make_cost_model() calls
// it, so every planner and simulator entry point checks a calibration built in code the way the file's is.
void validate_calibration(const Calibration& calibration, const Scenario& scenario);

// The runtime reserve per GPU the scenario's cost model uses: the calibration's when it gives one (topology
// model), else training.runtime_reserve.
double runtime_reserve_bytes(const Scenario& scenario, const Calibration& calibration);

}  // namespace shardscope
