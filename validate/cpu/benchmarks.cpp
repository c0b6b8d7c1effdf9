// Micro-benchmark loops; every timing is the host's steady clock, averaged over the world's ranks.
#include "validate/cpu/benchmarks.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "validate/core/bus_bandwidth.hpp"
#include "validate/core/median.hpp"
#include "validate/cpu/cpu_backend.hpp"
#include "validate/cpu/eigen_kernels.hpp"
#include "validate/mpi/bench_mpi.hpp"

namespace shardscope::validate {

namespace {

// Calls that take about `seconds` after one that took `once`, at least `at_least` and at most 100,000 (rank
// 0's count, so every rank does as many).
int calls_to_fill(double seconds, double once, int at_least) {
  const double wanted = once > 0 ? std::ceil(seconds / once) : at_least;
  return broadcast_count(std::clamp(static_cast<int>(std::min(wanted, 1e6)), at_least, 100000));
}

// Repetitions of a GEMM or bandwidth loop body that take about min_seconds.
int repetitions_for(double once, const BenchOptions& options) {
  return calls_to_fill(options.min_seconds, once, 3);
}

// Seconds per call of `body` over the repetitions, every rank at once, mean over ranks.
template <typename Body>
double time_everywhere(const BenchOptions& options, Body body) {
  body();  // warm-up: first touch of the buffers
  double start = now_seconds();
  body();
  const int reps = repetitions_for(now_seconds() - start, options);
  SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  start = now_seconds();
  for (int i = 0; i < reps; ++i) body();
  return mean_over_ranks((now_seconds() - start) / reps);
}

constexpr double kMedianUpToBytes = 16.0 * 1024 * 1024;
constexpr int kMedianRepeats = 5;
constexpr int kOverlapTrials = 3;
constexpr double kMinLoopSeconds = 2e-3;
constexpr double kColdPoolBytes = 256.0 * 1024 * 1024;  // per buffer: several last-level caches (32 MiB here)

}  // namespace

std::vector<CollectiveResult> bench_collectives(const BenchOptions& options, int ranks_per_node) {
  const int group_size = options.group_size > 0 ? options.group_size : ranks_per_node;
  const MpiGroups groups(group_size);
  const auto largest =
      static_cast<std::size_t>(options.max_bytes / 4) + static_cast<std::size_t>(world_size());
  // Buffers rotate over a pool larger than the caches: in an iteration the products between two collectives
  // evict their buffers, so a loop over one hot buffer would time a CPU's cache instead (GPUs have no such
  // difference). The pool holds the largest buffer at least twice.
  const std::size_t pool = std::max(2 * largest, static_cast<std::size_t>(kColdPoolBytes / 4));
  std::vector<float> send(pool, 1.0f), recv(pool, 0.0f);
  std::vector<CollectiveResult> out;
  for (GroupKind group : {GroupKind::intra, GroupKind::inter, GroupKind::global}) {
    const int ranks = groups.size(group);
    // Every rank must agree to skip: group sizes are equal for every group of a kind.
    if (ranks < 2) continue;
    for (CollectiveKind kind :
         {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter}) {
      for (const SweepSize& size : nccl_tests_sizes(kind, ranks, options.min_bytes, options.max_bytes)) {
        const std::int64_t count = size.count;
        const double bytes = size.bytes;
        const std::string what = collective_kind_name(kind) + " of " + std::to_string(bytes) + " bytes";
        // Each call's window: the elements the largest of its send and receive buffers spans, moved on by
        // that many (rounded up to a 64-byte line) and wrapped inside the pool.
        const auto span =
            static_cast<std::size_t>(kind == CollectiveKind::all_reduce ? count : count * ranks);
        const std::size_t step = (span + 15) / 16 * 16;
        std::size_t offset = 0;
        auto op = [&] {
          run_collective(kind, groups.comm(group), send.data() + offset, recv.data() + offset, count,
                         options.timeout_seconds, what, PollRest::yield);
          offset = offset + 2 * step <= pool ? offset + step : 0;
        };
        for (int i = 0; i < options.warmup; ++i) op();
        // nccl-tests' untimed op before the barrier, timed here to size the loop: a loop of 20 one-
        // microsecond calls is over before a single descheduling of either rank has passed, so small sizes
        // take as many calls as fill kMinLoopSeconds (rank 0's count; the time per call is unchanged).
        double start = now_seconds();
        op();
        const double once = now_seconds() - start;
        const int iterations = calls_to_fill(kMinLoopSeconds, once, options.iterations);
        // A loop of microseconds to milliseconds is at the mercy of a single descheduling: sizes up to
        // kMedianUpToBytes run it kMedianRepeats times and keep the median loop (larger ones take long
        // enough).
        const int repeats = bytes <= kMedianUpToBytes ? kMedianRepeats : 1;
        std::vector<double> loops;
        for (int rep = 0; rep < repeats; ++rep) {
          SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
          start = now_seconds();
          for (int i = 0; i < iterations; ++i) op();
          loops.push_back((now_seconds() - start) / iterations);
        }
        const double seconds = mean_over_ranks(median(loops));
        out.push_back(collective_row(kind, group, ranks, group_size, ranks_per_node, bytes, count, seconds,
                                     iterations));
      }
    }
  }
  return out;
}

std::vector<GemmResult> bench_gemms(const std::vector<Gemm>& gemms, const BenchOptions& options) {
  EigenKernels kernels;
  std::vector<GemmResult> out;
  for (const Gemm& g : gemms) {
    kernels.reserve(g);
    out.push_back({g, "float32", time_everywhere(options, [&] { kernels.gemm(g); })});
  }
  return out;
}

std::vector<BandwidthResult> bench_elementwise(const BenchOptions& options) {
  EigenKernels kernels;
  std::vector<BandwidthResult> out;
  for (double bytes = 1048576; bytes <= 64.0 * 1048576; bytes *= 4) {
    kernels.reserve_bytes(bytes);
    out.push_back({"", bytes, time_everywhere(options, [&] { kernels.elementwise(bytes); })});
  }
  return out;
}

std::vector<BandwidthResult> bench_copies(const BenchOptions& options) {
  EigenKernels kernels;
  std::vector<BandwidthResult> out;
  for (double bytes = 1048576; bytes <= 64.0 * 1048576; bytes *= 4) {
    kernels.copy(bytes);
    out.push_back({"device_to_device", bytes, time_everywhere(options, [&] { kernels.copy(bytes); })});
  }
  return out;
}

std::vector<OverlapResult> bench_overlap(const Gemm& gemm, const std::vector<double>& collective_bytes,
                                         const BenchOptions& options) {
  EigenKernels kernels;
  kernels.reserve(gemm);
  std::vector<OverlapResult> out;
  for (double bytes : collective_bytes) {
    const std::int64_t count = std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes / 4));
    std::vector<float> send(static_cast<std::size_t>(count), 1.0f), recv(static_cast<std::size_t>(count));
    auto reduce = [&] {  // polled as the run's communication thread polls, beside the products
      run_collective(CollectiveKind::all_reduce, MPI_COMM_WORLD, send.data(), recv.data(), count,
                     options.timeout_seconds, "overlap all_reduce", PollRest::yield);
    };
    auto compute = [&] { kernels.gemm(gemm); };
    compute();
    reduce();
    double start = now_seconds();
    compute();
    const int compute_reps = repetitions_for(now_seconds() - start, options);
    // One trial measures both streams alone and then together; a descheduled moment in any of the four
    // loops would read as a slowdown (or a speed-up), so kOverlapTrials trials keep each loop's median.
    std::vector<double> compute_alone, comm_alone, compute_with, comm_with;
    int comm_reps = 0;
    for (int trial = 0; trial < kOverlapTrials; ++trial) {
      SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
      start = now_seconds();
      for (int i = 0; i < compute_reps; ++i) compute();
      compute_alone.push_back(now_seconds() - start);
      if (trial == 0) {
        start = now_seconds();
        reduce();
        const double once = now_seconds() - start;
        comm_reps = broadcast_count(
            std::max(1, static_cast<int>(std::ceil(compute_alone.back() / std::max(once, 1e-9)))));
      }
      SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
      start = now_seconds();
      for (int i = 0; i < comm_reps; ++i) reduce();
      comm_alone.push_back(now_seconds() - start);
      SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
      double compute_seconds = 0;
      std::thread worker([&] {
        const double begin = now_seconds();
        for (int i = 0; i < compute_reps; ++i) compute();
        compute_seconds = now_seconds() - begin;
      });
      start = now_seconds();
      for (int i = 0; i < comm_reps; ++i) reduce();
      comm_with.push_back(now_seconds() - start);
      worker.join();
      compute_with.push_back(compute_seconds);
    }
    out.push_back({static_cast<double>(count) * 4, mean_over_ranks(median(compute_alone)),
                   mean_over_ranks(median(comm_alone)), mean_over_ranks(median(compute_with)),
                   mean_over_ranks(median(comm_with))});
  }
  return out;
}

}  // namespace shardscope::validate
