// Benchmark loops on the GPU: host clock for collectives (as nccl-tests), CUDA events for kernels and copies.
#include "validate/cuda/cuda_benchmarks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "validate/core/bus_bandwidth.hpp"
#include "validate/core/kernel_bench.hpp"
#include "validate/cuda/cublas_kernels.hpp"
#include "validate/cuda/cuda_check.hpp"
#include "validate/cuda/group_layout.hpp"
#include "validate/cuda/nccl_groups.hpp"
#include "validate/mpi/bench_mpi.hpp"
#include "validate/mpi/collective_sweep.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

// Events around `reps` calls of `enqueue` on `stream`; seconds per call.
class EventTimer {
 public:
  EventTimer() {
    SHARDSCOPE_CUDA_CHECK(cudaEventCreate(&start_));
    SHARDSCOPE_CUDA_CHECK(cudaEventCreate(&end_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(end_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  double seconds_per_call(cudaStream_t stream, int reps, const std::function<void()>& enqueue,
                          double timeout_seconds) {
    SHARDSCOPE_CUDA_CHECK(cudaEventRecord(start_, stream));
    for (int i = 0; i < reps; ++i) enqueue();
    SHARDSCOPE_CUDA_CHECK(cudaEventRecord(end_, stream));
    wait_for_stream(stream, timeout_seconds, "benchmark");
    return event_seconds(start_, end_) / reps;
  }

 private:
  cudaEvent_t start_ = nullptr, end_ = nullptr;
};

// Warm-up, one timed call to size the batch (rank 0's, so every rank runs as many), then the timed batch;
// every rank at once, mean over ranks.
double time_on_stream(cudaStream_t stream, const BenchOptions& options,
                      const std::function<void()>& enqueue) {
  EventTimer timer;
  timer.seconds_per_call(stream, 1, enqueue, options.timeout_seconds);
  const double once = timer.seconds_per_call(stream, 1, enqueue, options.timeout_seconds);
  const int reps = calls_to_fill(options.min_seconds, once, 3);
  world_barrier();
  return mean_over_ranks(timer.seconds_per_call(stream, reps, enqueue, options.timeout_seconds));
}

// time_on_stream on `stream` as a KernelTimer.
KernelTimer stream_timer(cudaStream_t stream, const BenchOptions& options) {
  return
      [stream, &options](const std::function<void()>& body) { return time_on_stream(stream, options, body); };
}

constexpr double kFirstBandwidthBytes = 1048576;
constexpr double kLastBandwidthBytes = 256.0 * 1048576;

// NCCL collectives on the plan's groups, enqueued on the communication stream; wait() polls the stream and
// aborts every communicator when the deadline passes.
class NcclSweepBackend : public CollectiveSweepBackend {
 public:
  NcclSweepBackend(const CudaDevice& device, int group_size, const BenchOptions& options)
      : groups_(group_size, options.timeout_seconds),
        options_(options),
        stream_(device.comm_stream()),
        send_(static_cast<std::size_t>(options.max_bytes) + 4 * static_cast<std::size_t>(world_size())),
        recv_(static_cast<std::size_t>(options.max_bytes) + 4 * static_cast<std::size_t>(world_size())) {}
  int group_ranks(GroupKind group) const override { return groups_.size(group); }
  void start_size(CollectiveKind kind, GroupKind, const SweepSize& size) override {
    what_ = contract_name(kind) + " of " + std::to_string(size.bytes) + " bytes";
  }
  void run(CollectiveKind kind, GroupKind group, const SweepSize& size) override {
    enqueue_nccl_collective(kind, groups_.comm(group), send_.data(), recv_.data(), size.count, stream_,
                            options_.timeout_seconds);
  }
  void wait(CollectiveKind, GroupKind group, const SweepSize&) override {
    wait_for_stream(stream_, options_.timeout_seconds, what_, groups_.comm(group),
                    [&] { groups_.abort_all(); });
  }

 private:
  NcclGroups groups_;
  const BenchOptions& options_;
  cudaStream_t stream_;
  DeviceBuffer send_, recv_;
  std::string what_;
};

}  // namespace

std::vector<CollectiveSample> bench_nccl_collectives(const CudaDevice& device, const BenchOptions& options,
                                                     int ranks_per_node) {
  device.make_current();
  const int group_size = options.group_size > 0 ? options.group_size : ranks_per_node;
  NcclSweepBackend backend(device, group_size, options);
  return sweep_collectives(backend, options, group_size, ranks_per_node, SweepLoop{});
}

std::vector<GemmSample> bench_cublas_gemms(const CudaDevice& device, const std::vector<Gemm>& gemms,
                                           const BenchOptions& options) {
  device.make_current();
  CublasKernels kernels(device.compute_stream());
  return bench_kernel_gemms(kernels, gemms, stream_timer(device.compute_stream(), options));
}

std::vector<BandwidthSample> bench_cuda_elementwise(const CudaDevice& device, const BenchOptions& options) {
  device.make_current();
  CublasKernels kernels(device.compute_stream());
  return bench_kernel_elementwise(kernels, kFirstBandwidthBytes, kLastBandwidthBytes,
                                  stream_timer(device.compute_stream(), options));
}

std::vector<BandwidthSample> bench_cuda_copies(const CudaDevice& device, const BenchOptions& options) {
  device.make_current();
  CublasKernels kernels(device.compute_stream());
  cudaStream_t stream = device.compute_stream();
  const auto largest = static_cast<std::size_t>(kLastBandwidthBytes / 2);
  void* host = nullptr;
  SHARDSCOPE_CUDA_CHECK(cudaMallocHost(&host, largest));
  struct FreeHost {
    void* p;
    ~FreeHost() { cudaFreeHost(p); }
  } free_host{host};
  DeviceBuffer device_buffer(largest);
  std::vector<BandwidthSample> out =
      bench_kernel_copies(kernels, kFirstBandwidthBytes, kLastBandwidthBytes, stream_timer(stream, options));
  // Host <-> device: `bytes` crossing the bus (each byte read on one side and written on the other).
  for (double bytes = kFirstBandwidthBytes; bytes <= kLastBandwidthBytes / 2; bytes *= 4) {
    const auto n = static_cast<std::size_t>(bytes);
    out.push_back({"host_to_device", bytes, time_on_stream(stream, options, [&] {
                     SHARDSCOPE_CUDA_CHECK(
                         cudaMemcpyAsync(device_buffer.data(), host, n, cudaMemcpyHostToDevice, stream));
                   })});
    out.push_back({"device_to_host", bytes, time_on_stream(stream, options, [&] {
                     SHARDSCOPE_CUDA_CHECK(
                         cudaMemcpyAsync(host, device_buffer.data(), n, cudaMemcpyDeviceToHost, stream));
                   })});
  }
  return out;
}

std::vector<OverlapSample> bench_cuda_overlap(const CudaDevice& device, const Gemm& gemm,
                                              const std::vector<double>& collective_bytes,
                                              const BenchOptions& options) {
  if (world_size() < 2) return {};
  device.make_current();
  NcclGroups groups(world_size(), options.timeout_seconds);
  ncclComm_t world = groups.comm(GroupKind::global);
  CublasKernels kernels(device.compute_stream());
  kernels.reserve(gemm);
  std::vector<OverlapSample> out;
  for (double bytes : collective_bytes) {
    const std::int64_t count = std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes / 4));
    DeviceBuffer send(static_cast<std::size_t>(count) * 4), recv(static_cast<std::size_t>(count) * 4);
    auto compute = [&] { kernels.gemm(gemm); };
    auto reduce = [&] {
      enqueue_nccl_collective(CollectiveKind::all_reduce, world, send.data(), recv.data(), count,
                              device.comm_stream(), options.timeout_seconds);
    };
    auto wait_both = [&] {
      wait_for_stream(device.compute_stream(), options.timeout_seconds, "overlap product");
      wait_for_stream(device.comm_stream(), options.timeout_seconds, "overlap all_reduce", world,
                      [&] { groups.abort_all(); });
    };
    // Host-timed batches (both streams run at once in the last one): seconds per batch.
    auto batch = [&](int compute_reps, int comm_reps) {
      world_barrier();
      const double start = now_seconds();
      for (int i = 0; i < std::max(compute_reps, comm_reps); ++i) {
        if (i < compute_reps) compute();
        if (i < comm_reps) reduce();
      }
      wait_both();
      return now_seconds() - start;
    };
    batch(1, 1);
    const double compute_once = batch(1, 0), comm_once = batch(0, 1);
    const int compute_reps = broadcast_count(std::clamp(
        static_cast<int>(std::ceil(options.min_seconds / std::max(compute_once, 1e-9))), 3, 100000));
    const int comm_reps = broadcast_count(std::clamp(
        static_cast<int>(std::ceil(compute_once * compute_reps / std::max(comm_once, 1e-9))), 1, 100000));
    const double compute_alone = batch(compute_reps, 0);
    const double comm_alone = batch(0, comm_reps);
    // Together: each stream's own end, from events recorded after its last op.
    world_barrier();
    cudaEvent_t begin = nullptr, compute_end = nullptr, comm_end = nullptr;
    SHARDSCOPE_CUDA_CHECK(cudaEventCreate(&begin));
    SHARDSCOPE_CUDA_CHECK(cudaEventCreate(&compute_end));
    SHARDSCOPE_CUDA_CHECK(cudaEventCreate(&comm_end));
    SHARDSCOPE_CUDA_CHECK(cudaEventRecord(begin, device.compute_stream()));
    SHARDSCOPE_CUDA_CHECK(cudaStreamWaitEvent(device.comm_stream(), begin, 0));
    for (int i = 0; i < std::max(compute_reps, comm_reps); ++i) {
      if (i < compute_reps) compute();
      if (i < comm_reps) reduce();
    }
    SHARDSCOPE_CUDA_CHECK(cudaEventRecord(compute_end, device.compute_stream()));
    SHARDSCOPE_CUDA_CHECK(cudaEventRecord(comm_end, device.comm_stream()));
    wait_both();
    const double compute_with = event_seconds(begin, compute_end), comm_with = event_seconds(begin, comm_end);
    for (cudaEvent_t e : {begin, compute_end, comm_end}) cudaEventDestroy(e);
    out.push_back({static_cast<double>(count) * 4, mean_over_ranks(compute_alone),
                   mean_over_ranks(comm_alone), mean_over_ranks(compute_with), mean_over_ranks(comm_with)});
  }
  return out;
}

}  // namespace shardscope::validate
