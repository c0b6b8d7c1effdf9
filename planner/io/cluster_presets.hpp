// Cluster presets (scenarios/clusters/*.yaml, embedded in the binary) and cluster files.
#pragma once

#include <string>
#include <vector>

#include "planner/core/cluster.hpp"

namespace shardscope {

// The preset with that name (cluster_presets() lists them); `nodes` > 0 overrides the node count (N x DGX).
// Throws InputError for an unknown name, suggesting the nearest or listing the known ones.
Cluster cluster_preset(const std::string& name, int nodes = 0);

// A full cluster YAML file, or a preset name if `preset_or_path` is not an existing file.
Cluster load_cluster(const std::string& preset_or_path, int nodes = 0);

}  // namespace shardscope
