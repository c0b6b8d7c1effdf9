// Cluster presets (scenarios/clusters/*.yaml, embedded in the binary) and cluster files.
#pragma once

#include <string>
#include <vector>

#include "planner/core/cluster.hpp"

namespace shardscope {

// The preset with that name (cluster_presets() lists them); `nodes` > 0 overrides the node count (N x DGX).
// Throws InputError for an unknown name, suggesting the nearest or listing the known ones.
Cluster cluster_preset(const std::string& name, int nodes = 0);

// Whether `preset_or_path` names a cluster file rather than a preset: it is no preset's name, and an existing
// file (a relative path read from `base_dir`). The one rule of every --cluster: load_cluster and the
// scenario override `cluster=` (scenario_overrides.hpp) both follow it.
bool names_cluster_file(const std::string& preset_or_path, const std::string& base_dir = ".");

// A cluster preset, or a full cluster YAML file (names_cluster_file).
Cluster load_cluster(const std::string& preset_or_path, int nodes = 0);

}  // namespace shardscope
