// plan --target-tokens-per-second X: the node-count search (planner/report/node_count.hpp) as a table and as
// JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "planner/report/node_count.hpp"

namespace shardscope::cli {

// The curve as a table with the answer line; and as JSON ("target").
void write_target_search(std::ostream& os, const TargetSearch& search, const std::string& cluster);
nlohmann::ordered_json target_search_json(const TargetSearch& search);

}  // namespace shardscope::cli
