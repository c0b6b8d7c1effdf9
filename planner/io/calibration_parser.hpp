// Reads calibration.yaml into a Calibration: link alpha/bandwidth per class, achievable fractions, overheads.
#pragma once

#include <string>

#include "planner/core/calibration.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope {

// Parses calibration YAML text; every coefficient must be present where its section is given and be
// non-negative (bandwidths positive). Errors are InputError with file, line, field.
Calibration parse_calibration_string(const std::string& text, const std::string& file);
// The same, checked against the scenario it calibrates (calibration_issues: a runtime reserve at or above the
// memory limit is an error at its line, as training.runtime_reserve is).
Calibration parse_calibration_string(const std::string& text, const std::string& file,
                                     const Scenario& scenario);
Calibration load_calibration_file(const std::string& path);
// The calibration a scenario names (planner.calibration), read and checked against the scenario, or the
// defaults when it names none. Every subcommand that reads a scenario calls this (inspect included), so a
// missing or bad calibration file is the same error everywhere.
Calibration scenario_calibration(const Scenario& scenario);

}  // namespace shardscope
