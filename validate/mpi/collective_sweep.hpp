// The nccl-tests loop over sizes, group kinds and operations, shared by both back ends (nccl-tests'
// testColl shape: the harness owns the loop, the sizes and the table's columns; a back end runs one op).
#pragma once

#include <vector>

#include "planner/cost/collective_cost.hpp"
#include "validate/measurements/measurements.hpp"
#include "validate/mpi/bench_mpi.hpp"
#include "validate/mpi/bench_options.hpp"

namespace shardscope::validate {

// One back end's collectives over the plan's groups of one group size.
class CollectiveSweepBackend {
 public:
  virtual ~CollectiveSweepBackend() = default;
  // Ranks in this rank's group of `group` (every group of a kind has as many).
  virtual int group_ranks(GroupKind group) const = 0;
  // Before the loops of one size: the back end may reset what it rotates (the cpu back end's buffer window).
  virtual void start_size(CollectiveKind /*kind*/, GroupKind /*group*/, const SweepSize& /*size*/) {}
  // One op of `kind` over this rank's group, `size.count` elements per rank: run to completion (cpu-mpi) or
  // enqueued (cuda-nccl, which then waits in wait()).
  virtual void run(CollectiveKind kind, GroupKind group, const SweepSize& size) = 0;
  // Until every op run() started is done; nothing for a back end whose run() completes.
  virtual void wait(CollectiveKind /*kind*/, GroupKind /*group*/, const SweepSize& /*size*/) {}
};

// How the loop of one size is timed.
struct SweepLoop {
  // Small sizes take as many calls as fill kMinLoopSeconds (rank 0's count), not just options.iterations:
  // a loop of 20 one-microsecond calls is over before one descheduling of a rank has passed.
  bool fill_min_loop_seconds = false;
  // Sizes up to kMedianUpToBytes run the loop kMedianRepeats times and keep the median loop.
  bool median_of_small_sizes = false;
};

inline constexpr double kMinLoopSeconds = 2e-3;
inline constexpr double kMedianUpToBytes = 16.0 * 1024 * 1024;
inline constexpr int kMedianRepeats = 5;

// Per group kind (intra, inter, all; kinds whose groups have one rank are skipped) and per operation
// (all-reduce, all-gather, reduce-scatter), nccl-tests' sizes from options.min_bytes to max_bytes by x2:
// `options.warmup` untimed ops, one more op timed alone (to size the loop), then per loop a world barrier and
// `iterations` ops back to back, host-timed, waited for at the end; time = the (median) loop's seconds per op
// averaged over the world's ranks. Rows as nccl-tests prints them (collective_row).
std::vector<CollectiveSample> sweep_collectives(CollectiveSweepBackend& backend, const BenchOptions& options,
                                                int group_size, int ranks_per_node, const SweepLoop& loop);

}  // namespace shardscope::validate
