// The machine the harness measured, as a cluster file in the project's own format (ranks as devices), so that
// planner and simulator can predict that machine: `shardscope-validate describe`.
#pragma once

#include <string>

#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

struct MachineCluster {
  double flops_per_second = 0;       // per rank: FLOPs / seconds over every measured product (the step's mix)
  double peak_flops_per_second = 0;  // per rank: the fastest measured product
  double memory_bytes_per_second = 0;  // per rank: the largest element-wise measurement
  double link_bytes_per_second = 0;    // all-reduce busbw over all ranks at the largest sizes (median of 3)
  double link_latency_seconds = 0;     // per ring step: the fastest small all-reduce (<= 4 KiB) / 2(n-1)
};

// Throws std::invalid_argument when the measurements lack products, element-wise rows or all-reduce rows.
MachineCluster machine_cluster(const Measurements& measurements);

// The cluster YAML: nodes x ranks_per_node "gpus" named after the device, peak FLOP/s = the fastest product
// with achievable_fraction = the step mix's rate / that peak, the ranks' shared memory as the intra-node
// fabric (a non-blocking switch: every pair at the measured bandwidth, as an NVSwitch is described), a
// nominal network (one node has none).
std::string machine_cluster_yaml(const Measurements& measurements, const MachineCluster& cluster);

}  // namespace shardscope::validate
