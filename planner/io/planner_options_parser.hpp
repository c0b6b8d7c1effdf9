// Reads a scenario's `planner:` section into PlannerOptions.
#pragma once

#include <string>

#include "planner/core/planner_options.hpp"

namespace YAML {
class Node;
}

namespace shardscope {

// Parses the `planner:` node (may be undefined/null: defaults). Throws InputError naming file/line/field.
void parse_planner_options(const YAML::Node& node, const std::string& file, PlannerOptions& out);

}  // namespace shardscope
