// The cuda-nccl micro-benchmarks: NCCL collectives per group kind over the size sweep with nccl-tests' loop
// and columns, the scenario's products in bf16 on cuBLAS, element-wise and copy bandwidth, and a product
// together with an all-reduce on the two streams.
#pragma once

#include <vector>

#include "validate/core/operator_work.hpp"
#include "validate/cuda/cuda_device.hpp"
#include "validate/measurements/measurements.hpp"
#include "validate/mpi/bench_options.hpp"

namespace shardscope::validate {

// nccl-tests' loop per size (out-of-place): warm-up, one untimed op, MPI barrier, `iterations` ops enqueued
// back to back, one polled wait; time = host elapsed / iterations, averaged over the world's ranks. Sizes
// and busbw as the cpu backend's bench_collectives (nccl-tests' S); groups of one rank are skipped.
std::vector<CollectiveSample> bench_nccl_collectives(const CudaDevice& device, const BenchOptions& options,
                                                     int ranks_per_node);

// Each product timed with CUDA events around a batch of repetitions (about min_seconds), mean over ranks.
std::vector<GemmSample> bench_cublas_gemms(const CudaDevice& device, const std::vector<Gemm>& gemms,
                                           const BenchOptions& options);

// Element-wise (fp32 axpy) and copies (device to device; host to device and back through pinned memory),
// 1 MiB .. 256 MiB moved (x4), event-timed.
std::vector<BandwidthSample> bench_cuda_elementwise(const CudaDevice& device, const BenchOptions& options);
std::vector<BandwidthSample> bench_cuda_copies(const CudaDevice& device, const BenchOptions& options);

// The largest product alone on the compute stream, an all-reduce of `bytes` over every rank alone on the
// communication stream, then both at once; skipped (empty) with one rank.
std::vector<OverlapSample> bench_cuda_overlap(const CudaDevice& device, const Gemm& gemm,
                                              const std::vector<double>& collective_bytes,
                                              const BenchOptions& options);

}  // namespace shardscope::validate
