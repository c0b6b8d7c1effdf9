// Cluster YAML -> validated Cluster (the schema of scenarios/clusters/*.yaml).
#pragma once

#include "planner/core/cluster.hpp"
#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {

// Parses and validates a full cluster mapping; every error names file, line and field.
Cluster parse_cluster(const YamlMap& map);

}  // namespace shardscope
