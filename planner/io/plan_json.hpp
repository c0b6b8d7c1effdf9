// Plan and PlanReport <-> JSON (deterministic key order); plan files are the simulator's input.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "planner/core/plan.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {

nlohmann::ordered_json plan_to_json(const Plan& plan);
nlohmann::ordered_json report_to_json(const PlanReport& report, const Scenario& scenario);

// Reads a plan from `plan.json` text (either a bare plan or a report with a "plan" key); checks it
// against the model (operator count and names) and records the file and each key's line in plan.source.
// Errors are InputError with file, line and field. Whether the plan suits a scenario (group size,
// precision, ...) is check_plan_configuration's question (planner/search/plan_check.hpp).
Plan plan_from_json_string(const std::string& text, const std::string& file, const Model& model);
Plan load_plan_file(const std::string& path, const Model& model);

}  // namespace shardscope
