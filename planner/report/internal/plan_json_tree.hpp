// The JSON trees of a plan and a plan report (nlohmann, deterministic key order), for writers that add
// keys of their own; plan_json.hpp has the text forms.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/core/plan.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {

nlohmann::ordered_json plan_to_json(const Plan& plan);
nlohmann::ordered_json report_to_json(const PlanReport& report, const Scenario& scenario);

}  // namespace shardscope
