// Micro-benchmark loops; every timing is the host's steady clock, averaged over the world's ranks.
#include "validate/cpu/benchmarks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <thread>

#include "validate/core/bus_bandwidth.hpp"
#include "validate/core/kernel_bench.hpp"
#include "validate/core/median.hpp"
#include "validate/cpu/cpu_backend.hpp"
#include "validate/cpu/eigen_kernels.hpp"
#include "validate/mpi/bench_mpi.hpp"
#include "validate/mpi/collective_sweep.hpp"

namespace shardscope::validate {

namespace {

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

// Seconds per call of a body on the host clock, every rank at once, mean over ranks (time_everywhere).
KernelTimer host_timer(const BenchOptions& options) {
  return [&options](const std::function<void()>& body) { return time_everywhere(options, body); };
}

constexpr int kOverlapTrials = 3;
constexpr double kFirstBandwidthBytes = 1048576;
constexpr double kLastBandwidthBytes = 64.0 * 1048576;
constexpr double kColdPoolBytes = 256.0 * 1024 * 1024;  // per buffer: several last-level caches (32 MiB here)

// MPI collectives on the plan's groups, each call's buffers the next window of a pool larger than the caches:
// in an iteration the products between two collectives evict their buffers, so a loop over one hot buffer
// would time a CPU's cache instead (GPUs have no such difference).
class MpiSweepBackend : public CollectiveSweepBackend {
 public:
  MpiSweepBackend(int group_size, const BenchOptions& options) : groups_(group_size), options_(options) {
    const auto largest =
        static_cast<std::size_t>(options.max_bytes / 4) + static_cast<std::size_t>(world_size());
    // The pool holds the largest buffer at least twice.
    pool_ = std::max(2 * largest, static_cast<std::size_t>(kColdPoolBytes / 4));
    send_.assign(pool_, 1.0f);
    recv_.assign(pool_, 0.0f);
  }
  int group_ranks(GroupKind group) const override { return groups_.size(group); }
  void start_size(CollectiveKind kind, GroupKind group, const SweepSize& size) override {
    // Each call's window: the elements the largest of its send and receive buffers spans, moved on by that
    // many (rounded up to a 64-byte line) and wrapped inside the pool.
    const auto span = static_cast<std::size_t>(
        kind == CollectiveKind::all_reduce ? size.count : size.count * groups_.size(group));
    step_ = (span + 15) / 16 * 16;
    offset_ = 0;
    what_ = contract_name(kind) + " of " + std::to_string(size.bytes) + " bytes";
  }
  void run(CollectiveKind kind, GroupKind group, const SweepSize& size) override {
    run_collective(kind, groups_.comm(group), send_.data() + offset_, recv_.data() + offset_, size.count,
                   options_.timeout_seconds, what_, PollRest::yield);
    offset_ = offset_ + 2 * step_ <= pool_ ? offset_ + step_ : 0;
  }

 private:
  MpiGroups groups_;
  const BenchOptions& options_;
  std::size_t pool_ = 0, step_ = 0, offset_ = 0;
  std::vector<float> send_, recv_;
  std::string what_;
};

}  // namespace

std::vector<CollectiveSample> bench_collectives(const BenchOptions& options, int ranks_per_node) {
  const int group_size = options.group_size > 0 ? options.group_size : ranks_per_node;
  MpiSweepBackend backend(group_size, options);
  return sweep_collectives(backend, options, group_size, ranks_per_node,
                           SweepLoop{.fill_min_loop_seconds = true, .median_of_small_sizes = true});
}

std::vector<GemmSample> bench_gemms(const std::vector<Gemm>& gemms, const BenchOptions& options) {
  EigenKernels kernels;
  return bench_kernel_gemms(kernels, gemms, host_timer(options));
}

std::vector<BandwidthSample> bench_elementwise(const BenchOptions& options) {
  EigenKernels kernels;
  return bench_kernel_elementwise(kernels, kFirstBandwidthBytes, kLastBandwidthBytes, host_timer(options));
}

std::vector<BandwidthSample> bench_copies(const BenchOptions& options) {
  EigenKernels kernels;
  return bench_kernel_copies(kernels, kFirstBandwidthBytes, kLastBandwidthBytes, host_timer(options));
}

std::vector<OverlapSample> bench_overlap(const Gemm& gemm, const std::vector<double>& collective_bytes,
                                         const BenchOptions& options) {
  EigenKernels kernels;
  kernels.reserve(gemm);
  std::vector<OverlapSample> out;
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
