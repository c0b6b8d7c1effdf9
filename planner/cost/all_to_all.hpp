// The price of an all-to-all among groups of consecutive ranks (expert parallelism's token dispatch and
// combine), every group exchanging at once, from the load it puts on each link of the fabric.
#pragma once

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"

namespace shardscope {

// Every rank of a group sends each other rank 1 / group_size of its buffer, all pairs at once. A link
// direction crossed by p pair flows carries p / group_size of a buffer, so the exchange takes at least the
// most loaded direction's bytes over its bandwidth; under max-min sharing the flows of that direction keep
// it busy until they end, and the others end sooner (equal flows). The latency is the longest path's,
// paid once (the pairs go at once, as NCCL's grouped sends do), under the ring and the nccl collective
// models alike.
struct AllToAllLink {
  int ranks = 1;                // GPUs of a group
  double alpha_seconds = 0;     // the longest path's latency between two ranks of a group
  double seconds_per_byte = 0;  // of one rank's buffer: max over link directions of load / bandwidth
  // Seconds of an all-to-all of `buffer_bytes` per rank (0 alone or with nothing to send).
  double seconds(double buffer_bytes) const {
    return ranks <= 1 || buffer_bytes <= 0 ? 0.0 : alpha_seconds + buffer_bytes * seconds_per_byte;
  }
};

// The all-to-all of groups of `group_size` consecutive ranks of `cluster` (group_size divides the GPUs),
// on its calibrated links. Groups inside a node are priced on one node (the others are alike and their
// traffic stays inside); groups over nodes on every group, since they may share the network's uplinks.
AllToAllLink all_to_all_link(const Cluster& cluster, const Calibration& calibration, int group_size);

}  // namespace shardscope
