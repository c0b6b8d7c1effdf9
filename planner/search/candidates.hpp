// The report's candidate plans for refinement: the plan, per-batch picks, baselines and near-optimal trades.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {

// The report's candidates: the plan, the search's pick at each kept batch size and every fitting baseline,
// distinct, fastest first (ties keep that order), at most `limit`.
std::vector<Plan> candidate_plans(const PlanReport& report, std::vector<Plan> per_batch,
                                  std::vector<Plan> alternatives, std::size_t limit, const Plan& configured);

// Near-optimal alternatives to the search's pick, for refinement: the exact search again at the pick's batch
// size with less memory to spend (the least any plan needs plus fractions of what lies between it and what
// the search had), each a different trade of memory for time that the search's separable prices rank behind
// the pick but a schedule or a simulation may not.
std::vector<Plan> alternative_plans(const ValidScenario& scenario, const Calibration& calibration,
                                    const SearchSpace& space, const Plan& best, const Plan& configured);

}  // namespace shardscope
