// The cuda-nccl bench and run: one CudaDevice per process, a device pool and a CudaBackend per plan.
#include "validate/cuda/cuda_entry.hpp"

#include <mpi.h>

#include <stdexcept>

#include "validate/cuda/cuda_backend.hpp"
#include "validate/cuda/cuda_benchmarks.hpp"
#include "validate/cuda/cuda_check.hpp"
#include "validate/cuda/device_pool.hpp"
#include "validate/cuda/device_probe.hpp"
#include "validate/cuda/group_layout.hpp"
#include "validate/mpi/machine_info.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

int local_rank() {
  if (!mpi_in_use()) return 0;
  MPI_Comm node = MPI_COMM_NULL;
  SHARDSCOPE_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int rank = 0;
  SHARDSCOPE_MPI_CHECK(MPI_Comm_rank(node, &rank));
  MPI_Comm_free(&node);
  return rank;
}

void require_device() {
  const DeviceProbe probe = probe_cuda_devices();
  if (!probe.usable()) throw ExecutionError(probe.reason());
}

// The cuda side of one plan: NCCL groups of the plan's group size (or the emulated rank's group sizes), the
// device pool the counted buffers come from, and the backend.
class CudaPlanBackend : public PlanBackend {
 public:
  CudaPlanBackend(const CudaDevice& device, const Plan& plan, const IterationProgram& program,
                  const std::vector<KernelWork>& work, const RunOptions& options, int emulated_rank,
                  int ranks)
      : pool_(device) {
    if (emulated_rank >= 0) {
      GroupSizes sizes;
      sizes.intra = group_placement(GroupKind::intra, emulated_rank, ranks, plan.group_size).comm_size;
      sizes.inter = group_placement(GroupKind::inter, emulated_rank, ranks, plan.group_size).comm_size;
      sizes.global = ranks;
      backend_ = std::make_unique<CudaBackend>(device, sizes, options.timeout_seconds);
    } else {
      groups_ = std::make_unique<NcclGroups>(plan.group_size, options.timeout_seconds);
      backend_ = std::make_unique<CudaBackend>(device, *groups_, options.timeout_seconds);
    }
    backend_->reserve(program, work);
    emulated_ = emulated_rank >= 0;
  }
  ExecutionBackend& backend() override { return *backend_; }
  MemorySource* memory_source() override { return &pool_; }
  void start_measured_iteration() override {
    if (measured_ == 0) backend_->take_emulated_collective_seconds();  // drops the warm-up's
    ++measured_;
    pool_.reset_peaks();
  }
  Extra extra() override {
    Extra e;
    e.peak_bytes = pool_.used_high_bytes();
    e.reserved_peak_bytes = pool_.reserved_high_bytes();
    e.device_peak_bytes = pool_.device_peak_bytes();
    if (emulated_)
      e.emulated_collective_seconds = backend_->take_emulated_collective_seconds() / std::max(1, measured_);
    return e;
  }

 private:
  DevicePool pool_;
  std::unique_ptr<NcclGroups> groups_;
  std::unique_ptr<CudaBackend> backend_;
  bool emulated_ = false;
  int measured_ = 0;
};

}  // namespace

MachineInfo cuda_machine_info(double compute_scale, int emulated_rank) {
  require_device();
  MachineInfo info = mpi_machine_info(compute_scale);
  info.backend = emulated_rank >= 0 ? "cuda-emulated" : "cuda-nccl";
  info.emulated_rank = emulated_rank;
  int device = 0;
  SHARDSCOPE_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp props = {};
  SHARDSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  int sm_khz = 0, memory_khz = 0;
  SHARDSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device));
  SHARDSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device));
  info.device_name = std::string(props.name) + " (" + std::to_string(props.totalGlobalMem >> 20) +
                     " MiB, SM clock " + std::to_string(sm_khz / 1000) + " MHz, memory clock " +
                     std::to_string(memory_khz / 1000) + " MHz, bus " + std::to_string(props.pciBusID) + ")";
  info.versions.erase("eigen");
  info.versions["cuda"] = cuda_library_versions();
  info.memory_bytes_per_rank = static_cast<double>(props.totalGlobalMem);
  return info;
}

Measurements cuda_bench(const BenchOptions& options, const std::vector<Gemm>& gemms, double compute_scale,
                        int emulated_rank) {
  require_device();
  const CudaDevice device(local_rank());
  Measurements m;
  m.machine = cuda_machine_info(compute_scale, emulated_rank);
  if (emulated_rank < 0) m.collectives = bench_nccl_collectives(device, options, m.machine.ranks_per_node);
  m.gemms = bench_cublas_gemms(device, gemms, options);
  m.elementwise = bench_cuda_elementwise(device, options);
  m.copies = bench_cuda_copies(device, options);
  if (emulated_rank < 0 && !gemms.empty()) {
    const Gemm* largest = &gemms.front();
    for (const Gemm& g : gemms) largest = g.flops() > largest->flops() ? &g : largest;
    m.overlap = bench_cuda_overlap(device, *largest, {1048576.0, 16.0 * 1048576}, options);
  }
  return m;
}

Measurements cuda_run(const Scenario& scenario, const Calibration& calibration,
                      const std::vector<ValidationPlan>& plans, const RunOptions& options,
                      int emulated_rank) {
  if (emulated_rank >= 0) {
    if (world_size() != 1) {
      throw std::invalid_argument(
          "--emulate-rank runs one rank of the plan on one GPU: launch one process, not " +
          std::to_string(world_size()));
    }
    if (emulated_rank >= scenario.cluster.gpus()) {
      throw std::invalid_argument(scenario.source_file + ": cluster: --emulate-rank " +
                                  std::to_string(emulated_rank) + " is not a rank of the scenario's " +
                                  std::to_string(scenario.cluster.gpus()) + " GPUs");
    }
  }
  require_device();
  const CudaDevice device(local_rank());
  Measurements m;
  m.machine = cuda_machine_info(options.compute_scale, emulated_rank);
  const int ranks = emulated_rank >= 0 ? scenario.cluster.gpus() : world_size();
  m.iterations = run_plans_with(
      scenario, calibration, plans, options, ranks,
      [&](const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work) {
        return std::make_unique<CudaPlanBackend>(device, plan, program, work, options, emulated_rank, ranks);
      });
  return m;
}

}  // namespace shardscope::validate
