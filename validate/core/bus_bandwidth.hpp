// nccl-tests' bandwidth definitions: algorithm bandwidth S / t and bus bandwidth with the per-collective
// factor.
#pragma once

#include "planner/cost/collective_cost.hpp"

namespace shardscope::validate {

// The busbw factor of nccl-tests (doc/PERFORMANCE.md): 2(n-1)/n for all-reduce, (n-1)/n for all-gather and
// reduce-scatter, whose size S is the total (gathered or scattered) buffer.
double bus_bandwidth_factor(CollectiveKind kind, int ranks);
// algbw in GB/s (1e9 bytes) of `bytes` (nccl-tests' "size" column) moved in `seconds`.
double algorithm_gbps(double bytes, double seconds);
double bus_gbps(CollectiveKind kind, int ranks, double bytes, double seconds);

}  // namespace shardscope::validate
