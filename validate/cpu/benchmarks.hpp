// The cpu-mpi micro-benchmarks: collectives over a size sweep per group kind (nccl-tests' loop and columns),
// the scenario's GEMM shapes, element-wise and copy bandwidth, and compute with communication together.
#pragma once

#include <vector>

#include "validate/core/operator_work.hpp"
#include "validate/measurements/measurements.hpp"
#include "validate/mpi/bench_options.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

// nccl-tests' loop per size: warm-up, one untimed op, barrier, `iterations` back-to-back ops timed by the
// host clock (more where that many would take under 2 ms, so one descheduling cannot spoil the loop), time =
// elapsed / iterations averaged over every rank of the world (sizes up to 16 MiB: the median of 5 such loops
// per rank, as short loops are easily disturbed). Every group of the kind runs at once (as a plan's
// collectives do); groups of one rank are skipped. Sizes are nccl-tests' S (per-rank buffer for all-reduce,
// total for all-gather and reduce-scatter), from min to max bytes by x2. Unlike nccl-tests, each call's
// buffers are the next window of a 256 MiB pool, so a CPU's caches do not hold them (as in an iteration,
// where the products between two collectives evict them).
std::vector<CollectiveSample> bench_collectives(const BenchOptions& options, int ranks_per_node);

// Each product timed on every rank at once (ranks share the machine as in a run), mean over ranks.
std::vector<GemmSample> bench_gemms(const std::vector<Gemm>& gemms, const BenchOptions& options);

// Element-wise triad and memcpy over 1 MiB .. 64 MiB (x4), every rank at once.
std::vector<BandwidthSample> bench_elementwise(const BenchOptions& options);
std::vector<BandwidthSample> bench_copies(const BenchOptions& options);

// The largest product alone, an all-reduce of `bytes` alone (repeated for as long), then both at once on two
// threads: the overlap slowdown of each (each of the four loop times the median of three trials).
std::vector<OverlapSample> bench_overlap(const Gemm& gemm, const std::vector<double>& collective_bytes,
                                         const BenchOptions& options);

}  // namespace shardscope::validate
