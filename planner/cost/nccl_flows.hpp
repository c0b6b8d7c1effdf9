// NCCL's collectives as point-to-point flows: the edges each channel's ring or tree (or NVLS / PAT's switch
// traffic) carries, with each channel's edges between the same two ranks merged. The simulator runs them
// (sim/collectives/nccl.cpp); a sweep counts them to estimate what simulating a point costs.
#pragma once

#include <vector>

#include "planner/cost/nccl_model.hpp"

namespace shardscope {

struct NcclEdge {
  int from = 0;
  int to = 0;
  double bytes = 0;  // the payload this edge carries
  int channels = 1;  // NCCL channels merged into this edge (their bytes summed)
};

// One communicator's edges (its topology's ranks) for a collective of `kind` over `total_bytes` under NCCL's
// pick `estimate`, in a fixed order. With `merge_channels`, the channels' edges between the same two ranks
// with the same payload are one edge (first-seen order) that carries their bytes and counts them: they take
// one route and, shared as that many flows, move exactly what they would. Edges from a rank to itself are
// dropped.
std::vector<NcclEdge> nccl_edges(const NcclTopology& topology, CollectiveKind kind, double total_bytes,
                                 const NcclEstimate& estimate, bool merge_channels = true);

}  // namespace shardscope
