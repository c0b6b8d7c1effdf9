// Plan files: a plan as JSON text, and reading one back checked against the model (the simulator's input).
#pragma once

#include <string>

#include "planner/core/model.hpp"
#include "planner/core/plan.hpp"

namespace shardscope {

// The plan file's text (`shardscope plan --out`): the JSON of plan_to_json, indented by 2, no final newline.
std::string plan_json_text(const Plan& plan);

// Reads a plan from `plan.json` text (either a bare plan or a report with a "plan" key); checks it
// against the model (operator count and names) and records the file and each key's line in plan.source.
// Errors are InputError with file, line and field. Whether the plan suits a scenario (group size,
// precision, ...) is check_plan_configuration's question (planner/search/plan_check.hpp).
Plan plan_from_json_string(const std::string& text, const std::string& file, const Model& model);
Plan load_plan_file(const std::string& path, const Model& model);

}  // namespace shardscope
