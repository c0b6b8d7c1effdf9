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
// for another model (operator count, or model digest: the same names with other sizes), group size,
// precision, sequence length, micro-batch, accumulation or cost model, or when an operator's choice is
// outside the scenario's space: scopes that break PaRO's rule, a slice count that is not 1 or one of the
// slice_granularities (or that splits an operator that cannot be split), checkpointing the policy forbids.
// When all of these match but a digest differs (say a changed memory limit), returns one warning line per
// digest. Whether the plan fits the memory limit is evaluate_plan's question (it needs the cost model).
std::vector<std::string> check_plan_configuration(const Plan& plan, const Scenario& scenario,
                                                  const Calibration& calibration);

}  // namespace shardscope
