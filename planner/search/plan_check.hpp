// Does a plan belong to this scenario? Compares the configuration a plan records with a scenario's.
#pragma once

#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope {

// Fills the configuration fields of `plan` (group size, precision, sequence length, cost model and the
// scenario and calibration digests) from what it is being made for.
void record_plan_configuration(Plan& plan, const Scenario& scenario, const Calibration& calibration);

// Throws InputError (plan file, line, field, the plan's value and the scenario's) when the plan was made
// for another group size, precision, sequence length, micro-batch, accumulation or cost model. When all
// of these match but a digest differs (say a changed memory limit), returns one warning line per digest.
std::vector<std::string> check_plan_configuration(const Plan& plan, const Scenario& scenario,
                                                  const Calibration& calibration);

}  // namespace shardscope
