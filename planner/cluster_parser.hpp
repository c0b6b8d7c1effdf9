// Cluster YAML -> validated Cluster (the schema of scenarios/clusters/*.yaml).
#pragma once

#include "planner/cluster.hpp"
#include "planner/yaml_reader.hpp"

namespace shardscope {

// Parses and validates a full cluster mapping; every error names file, line and field.
Cluster parse_cluster(const YamlMap& map);

}  // namespace shardscope
