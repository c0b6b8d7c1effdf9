// The plans `shardscope-validate run` executes for a scenario: the planner's own plan, baselines (DDP,
// ZeRO-2, ZeRO-3, ...) and a split-operator plan, each with the planner's prediction.
#pragma once

#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope::validate {

struct ValidationPlan {
  std::string strategy;  // as asked: "shardscope", a baseline's name, or "split"
  Plan plan;             // with plan.predicted set by evaluate_plan
};

// The strategies run when none is asked for.
std::vector<std::string> default_validation_strategies();

// Plans the scenario once and picks each asked strategy: "shardscope" (the planner's plan), any baseline the
// planner knows ("ddp", "zero-2", "zero-3", "mics", ...), or "split": the ZeRO-3 plan with every splittable
// operator cut into the scenario's largest slice granularity (at most 4), half its slices sharded (GGG) and
// half replicated. Throws std::invalid_argument naming a strategy that is unknown or whose plan does not fit;
// with `unfit`, a strategy whose plan does not fit is listed there instead (bench's default list).
std::vector<ValidationPlan> validation_plans(const Scenario& scenario, const Calibration& calibration,
                                             const std::vector<std::string>& strategies,
                                             std::vector<std::string>* unfit = nullptr);

}  // namespace shardscope::validate
