// The micro-benchmarks' shared MPI helpers (bench_mpi.hpp).
#include "validate/mpi/bench_mpi.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "validate/core/bus_bandwidth.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double mean_over_ranks(double value) {
  if (!mpi_in_use()) return value;
  double sum = 0;
  SHARDSCOPE_MPI_CHECK(MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  return sum / world_size();
}

int broadcast_count(int count) {
  if (!mpi_in_use()) return count;
  SHARDSCOPE_MPI_CHECK(MPI_Bcast(&count, 1, MPI_INT, 0, MPI_COMM_WORLD));
  return count;
}

int calls_to_fill(double seconds, double once, int at_least) {
  const double wanted = once > 0 ? std::ceil(seconds / once) : at_least;
  return broadcast_count(std::clamp(static_cast<int>(std::min(wanted, 1e6)), at_least, 100000));
}

int nodes_in_group(GroupKind kind, int group_size, int ranks_per_node) {
  const int rank = world_rank(), n = world_size(), m = std::max(1, group_size);
  std::set<int> nodes;
  for (int r = 0; r < n; ++r) {
    const bool member = kind == GroupKind::global || (kind == GroupKind::intra && r / m == rank / m) ||
                        (kind == GroupKind::inter && r % m == rank % m);
    if (member) nodes.insert(r / std::max(1, ranks_per_node));
  }
  return static_cast<int>(nodes.size());
}

std::vector<SweepSize> nccl_tests_sizes(CollectiveKind kind, int ranks, double min_bytes, double max_bytes) {
  std::vector<SweepSize> out;
  for (double size = min_bytes; size <= max_bytes; size *= 2) {
    const std::int64_t count = kind == CollectiveKind::all_reduce
                                   ? static_cast<std::int64_t>(size / 4)
                                   : static_cast<std::int64_t>(size / 4 / ranks);
    if (count < 1) continue;
    const double bytes = kind == CollectiveKind::all_reduce ? 4.0 * static_cast<double>(count)
                                                            : 4.0 * static_cast<double>(count) * ranks;
    out.push_back({count, bytes});
  }
  return out;
}

CollectiveSample collective_row(CollectiveKind kind, GroupKind group, int ranks, int group_size,
                                int ranks_per_node, double bytes, std::int64_t count, double seconds,
                                int iterations) {
  CollectiveSample r;
  r.op = kind;
  r.group = group;
  r.group_size = ranks;
  r.nodes = nodes_in_group(group, group_size, ranks_per_node);
  r.bytes = bytes;
  r.count = count;
  r.time_seconds = seconds;
  r.algbw_gbps = algorithm_gbps(bytes, seconds);
  r.busbw_gbps = bus_gbps(kind, ranks, bytes, seconds);
  r.iterations = iterations;
  return r;
}

}  // namespace shardscope::validate
