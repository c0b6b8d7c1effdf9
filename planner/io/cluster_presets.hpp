// Cluster presets (scenarios/clusters/*.yaml, embedded in the binary) and cluster files.
#pragma once

#include <string>
#include <vector>

#include "planner/core/cluster.hpp"

namespace shardscope {

// Names of the shipped presets, sorted (e.g. "titan-rtx-8-pcie3", "a100-40gb-2x8-100gbe", "dgx-a100",
// "dgx-h100").
std::vector<std::string> cluster_preset_names();

// The preset with that name; `nodes` > 0 overrides the node count (N x DGX). Throws InputError
// (file = the preset's file name) for an unknown name, listing the known ones.
Cluster cluster_preset(const std::string& name, int nodes = 0);

// A full cluster YAML file, or a preset name if `preset_or_path` is not an existing file.
Cluster load_cluster(const std::string& preset_or_path, int nodes = 0);

}  // namespace shardscope
