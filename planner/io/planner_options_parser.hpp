// Reads a scenario's `planner:` section into PlannerOptions and its `execution:` section into
// ExecutionOptions.
#pragma once

#include <string>

#include "planner/core/execution_options.hpp"
#include "planner/core/planner_options.hpp"

namespace YAML {
class Node;
}

namespace shardscope {

// Parses the `planner:` node (may be undefined/null: defaults). Throws InputError naming file/line/field.
void parse_planner_options(const YAML::Node& node, const std::string& file, PlannerOptions& out);
// Parses the `execution:` node (may be undefined/null: defaults, overlap on).
void parse_execution_options(const YAML::Node& node, const std::string& file, ExecutionOptions& out);

}  // namespace shardscope
