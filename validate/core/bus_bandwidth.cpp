// nccl-tests' algbw and busbw (NVIDIA/nccl-tests doc/PERFORMANCE.md), re-implemented.
#include "validate/core/bus_bandwidth.hpp"

namespace shardscope::validate {

double bus_bandwidth_factor(CollectiveKind kind, int ranks) {
  const double n = ranks;
  if (ranks <= 1) return 0;
  return kind == CollectiveKind::all_reduce ? 2 * (n - 1) / n : (n - 1) / n;
}

double algorithm_gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }

double bus_gbps(CollectiveKind kind, int ranks, double bytes, double seconds) {
  return algorithm_gbps(bytes, seconds) * bus_bandwidth_factor(kind, ranks);
}

}  // namespace shardscope::validate
