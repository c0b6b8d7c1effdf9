// What shardscope-validate --backend cuda-nccl calls (no CUDA headers here): bench and run on this rank's
// GPU, or, with an emulated rank, one rank of a bigger plan on one GPU. Both throw ExecutionError "no CUDA
// device: cudaGetDeviceCount returned ..." when there is no GPU, std::invalid_argument for a bad launch.
#pragma once

#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/scenario.hpp"
#include "validate/core/validation_plans.hpp"
#include "validate/measurements/measurements.hpp"
#include "validate/mpi/bench_options.hpp"
#include "validate/mpi/plan_runs.hpp"

namespace shardscope::validate {

// The machine as cuda-nccl (or cuda-emulated) sees it: the cpu backend's hostnames and rank layout, the
// GPU's name and memory, the CUDA runtime and driver, cuBLAS and NCCL versions, the SM and memory clocks.
MachineInfo cuda_machine_info(double compute_scale, int emulated_rank);

// bench: collectives per group kind (none when emulating: one process), the products of `gemms`, element-wise
// and copy bandwidth, and the overlap of the largest product with all-reduces.
Measurements cuda_bench(const BenchOptions& options, const std::vector<Gemm>& gemms, double compute_scale,
                        int emulated_rank);

// run: every plan on the world's ranks (one per GPU), or on this one GPU as rank `emulated_rank` of the
// scenario's GPUs (the world must then have one rank).
Measurements cuda_run(const Scenario& scenario, const Calibration& calibration,
                      const std::vector<ValidationPlan>& plans, const RunOptions& options, int emulated_rank);

}  // namespace shardscope::validate
