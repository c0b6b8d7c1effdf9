// Scenario YAML parsing: text -> validated Scenario, every error naming file, line and field.
#pragma once

#include <string>

#include "planner/core/scenario.hpp"

namespace shardscope {

// Reads and parses a scenario file. Relative paths inside it (HF config.json, calibration) resolve
// against the file's directory. Throws InputError on any problem.
Scenario load_scenario_file(const std::string& path);

// Parses scenario text; `file_name` is used in error messages and `base_dir` resolves relative paths.
Scenario parse_scenario_string(const std::string& text, const std::string& file_name = "<string>",
                               const std::string& base_dir = ".");

}  // namespace shardscope
