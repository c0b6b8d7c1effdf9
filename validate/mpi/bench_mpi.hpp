// What both backends' micro-benchmarks share over MPI: the host clock, the mean over ranks, rank 0's count
// for every rank, and how the nccl-tests table names and places a group.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/cost/collective_cost.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

double now_seconds();                  // the host's steady clock
double mean_over_ranks(double value);  // over MPI_COMM_WORLD
int broadcast_count(int count);        // rank 0's count, on every rank
// Calls that take about `seconds` after one that took `once`: at least `at_least`, at most 100,000, rank 0's
// count (so every rank does as many).
int calls_to_fill(double seconds, double once, int at_least);
// Nodes among the members of this rank's group of `kind` (intra = ranks r / M, inter = r mod M; node =
// rank / ranks_per_node).
int nodes_in_group(GroupKind kind, int group_size, int ranks_per_node);

// nccl-tests' sizes of one operation over `ranks` ranks, from min to max bytes by x2: the elements per rank
// (all-reduce: the per-rank buffer; gather and scatter: S / n per rank) and the size the table prints.
struct SweepSize {
  std::int64_t count = 0;
  double bytes = 0;
};
std::vector<SweepSize> nccl_tests_sizes(CollectiveKind kind, int ranks, double min_bytes, double max_bytes);

// One row of the nccl-tests table: `seconds` per op of `kind` over this rank's group of `group` kind (`ranks`
// members; groups of `group_size` ranks, `ranks_per_node` per node), `bytes` nccl-tests' size, `count` the
// elements per rank, `iterations` timed.
CollectiveSample collective_row(CollectiveKind kind, GroupKind group, int ranks, int group_size,
                                int ranks_per_node, double bytes, std::int64_t count, double seconds,
                                int iterations);

}  // namespace shardscope::validate
