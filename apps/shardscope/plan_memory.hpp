// plan --memory-sweep: the memory limits at which the search's best plan changes, and what the next GiB
// buys at the scenario's limit, in the text report and the JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "planner/search/memory_sweep.hpp"

namespace shardscope::cli {

// "memory_sweep": the limit, the device's memory, each breakpoint and the step past the limit.
nlohmann::ordered_json memory_sweep_json(const MemorySweep& sweep);
// The same as a table and a line after the plan's report.
void write_memory_sweep(std::ostream& os, const MemorySweep& sweep);

}  // namespace shardscope::cli
