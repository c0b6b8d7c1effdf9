// plan --top K: the fastest distinct plans after the recommended one, and what sets each apart from it.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "planner/core/plan.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::present {

// What `plan` does differently from `reference` (same model): its micro-batch and accumulation, the
// operators whose sharding differs (count and the first two, "layer0.mlp GGG -> IIG"), and how many more or
// fewer it checkpoints (count and the first); "the same choices" when nothing differs.
std::string plan_difference(const Plan& plan, const Plan& reference);

// The report's candidates other than the plan, at most `top`, fastest first (PlanReport::candidates).
std::vector<const Plan*> alternatives(const PlanReport& report, std::size_t top);

// The table after the report (each alternative's source, batch, time, throughput against the plan, peak),
// then each one's difference from the plan on a line of its own.
void write_alternatives(std::ostream& os, const PlanReport& report, std::size_t top);

}  // namespace shardscope::present
