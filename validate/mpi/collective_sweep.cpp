// sweep_collectives: nccl-tests' loop, whichever back end runs the ops.
#include "validate/mpi/collective_sweep.hpp"

#include "validate/core/median.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

struct SizeTiming {
  double seconds = 0;  // per op, averaged over the world's ranks
  int iterations = 0;  // ops per loop
};

// One size timed as `loop` says.
SizeTiming time_one_size(CollectiveSweepBackend& backend, CollectiveKind kind, GroupKind group,
                         const SweepSize& size, const BenchOptions& options, const SweepLoop& loop) {
  backend.start_size(kind, group, size);
  for (int i = 0; i < options.warmup; ++i) backend.run(kind, group, size);
  // nccl-tests' untimed op before the barrier, timed here to size the loop.
  double start = now_seconds();
  backend.run(kind, group, size);
  backend.wait(kind, group, size);
  const double once = now_seconds() - start;
  const int iterations = loop.fill_min_loop_seconds ? calls_to_fill(kMinLoopSeconds, once, options.iterations)
                                                    : options.iterations;
  const int repeats = loop.median_of_small_sizes && size.bytes <= kMedianUpToBytes ? kMedianRepeats : 1;
  std::vector<double> loops;
  for (int rep = 0; rep < repeats; ++rep) {
    world_barrier();
    start = now_seconds();
    for (int i = 0; i < iterations; ++i) backend.run(kind, group, size);
    backend.wait(kind, group, size);
    loops.push_back((now_seconds() - start) / iterations);
  }
  return {mean_over_ranks(median(loops)), iterations};
}

}  // namespace

std::vector<CollectiveSample> sweep_collectives(CollectiveSweepBackend& backend, const BenchOptions& options,
                                                int group_size, int ranks_per_node, const SweepLoop& loop) {
  std::vector<CollectiveSample> out;
  for (GroupKind group : {GroupKind::intra, GroupKind::inter, GroupKind::global}) {
    const int ranks = backend.group_ranks(group);
    if (ranks < 2) continue;  // every rank skips alike: groups of a kind are all of one size
    for (CollectiveKind kind :
         {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter}) {
      for (const SweepSize& size : nccl_tests_sizes(kind, ranks, options.min_bytes, options.max_bytes)) {
        const SizeTiming t = time_one_size(backend, kind, group, size, options, loop);
        out.push_back(collective_row(kind, group, ranks, group_size, ranks_per_node, size.bytes, size.count,
                                     t.seconds, t.iterations));
      }
    }
  }
  return out;
}

}  // namespace shardscope::validate
