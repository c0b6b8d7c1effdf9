// Reads calibration.yaml into a Calibration: link alpha/bandwidth per class, achievable fractions, overheads.
#pragma once

#include <string>

#include "planner/core/calibration.hpp"

namespace shardscope {

// Parses calibration YAML text; every coefficient must be present where its section is given and be
// non-negative (bandwidths positive). Errors are InputError with file, line, field.
Calibration parse_calibration_string(const std::string& text, const std::string& file);
Calibration load_calibration_file(const std::string& path);
// The calibration a scenario names (planner.calibration), or the defaults when it names none.
Calibration scenario_calibration(const std::string& calibration_file);

}  // namespace shardscope
