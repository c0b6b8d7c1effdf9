// Writes a Calibration as calibration.yaml text that planner/io/calibration_parser reads back to the same
// numbers (every value printed with 17 significant digits).
#pragma once

#include <string>

#include "planner/core/calibration.hpp"

namespace shardscope::fit {

// `header` becomes comment lines at the top (where the numbers come from).
std::string calibration_yaml(const Calibration& calibration, const std::string& header);

}  // namespace shardscope::fit
