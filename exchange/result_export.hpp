// Views of an IterationResult for other tools: a Chrome/Perfetto trace and a per-link CSV (CLI and GUI).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "exchange/iteration_result.hpp"

namespace shardscope::sim {

// Trace Event JSON: per traced GPU a process with a compute and a communication thread, a complete event
// per task and a counter event per memory sample (bytes by category); times in microseconds.
nlohmann::ordered_json trace_event_json(const IterationResult& result);

// One row per link direction under the header
// "link,direction,bandwidth_bytes_per_second,bytes,utilisation" (bandwidth and bytes to 17 digits).
void write_link_csv(std::ostream& out, const std::vector<LinkUsage>& links);

}  // namespace shardscope::sim
