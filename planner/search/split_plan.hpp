// The split-operator study plan: ZeRO-3's plan with every splittable operator cut into slices, half of
// them sharded. The validation harness runs it and `shardscope compare` rebuilds it to predict that run.
#pragma once

#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope {

// `zero3` with strategy "split": every splittable operator that has matrix products is cut into the
// scenario's largest slice granularity of at most 4, slices / 2 of them sharded (GGG), the rest replicated.
// Throws std::invalid_argument when the scenario allows no granularity from 2 to 4.
Plan split_plan(const Scenario& scenario, const Plan& zero3);

}  // namespace shardscope
