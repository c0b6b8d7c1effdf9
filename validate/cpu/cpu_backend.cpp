// Compute = EigenKernels::run; collective = run_collective on the task's group with buffers of its bytes.
#include "validate/cpu/cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace shardscope::validate {

CpuBackend::CpuBackend(const MpiGroups& groups, CpuBuffers& buffers, double timeout_seconds,
                       FaultInjection faults, MPI_Comm tensor)
    : groups_(groups),
      tensor_(tensor),
      timeout_seconds_(timeout_seconds),
      faults_(faults),
      rank_(world_rank()),
      buffers_(buffers) {
  if (tensor_ != MPI_COMM_NULL) SHARDSCOPE_MPI_CHECK(MPI_Comm_size(tensor_, &tensor_ranks_));
}

void CpuBackend::reserve(const IterationProgram& program, const std::vector<KernelWork>& work) {
  buffers_.kernels.reserve(work);
  std::size_t largest = 1;
  for (const Task& task : program.tasks) {
    if (task.operator_index >= 0) continue;
    const int ranks = groups_.size(task.group);
    largest = std::max(largest, static_cast<std::size_t>(elements_per_rank(task.total_bytes, ranks) * ranks));
  }
  if (buffers_.send.size() < largest) buffers_.send.assign(largest, 1.0f);
  if (buffers_.recv.size() < largest) buffers_.recv.assign(largest, 0.0f);
  std::size_t mesh = 1;
  for (const KernelWork& w : work)
    for (const MeshCall& call : w.mesh)
      mesh = std::max(mesh,
                      static_cast<std::size_t>(elements_per_rank(call.bytes, tensor_ranks_) * tensor_ranks_));
  if (buffers_.mesh_send.size() < mesh) buffers_.mesh_send.assign(mesh, 1.0f);
  if (buffers_.mesh_recv.size() < mesh) buffers_.mesh_recv.assign(mesh, 0.0f);
}

void CpuBackend::run_compute(const KernelWork& work) {
  if (rank_ == faults_.fail_rank) {
    throw ExecutionError("injected failure (--fail-rank " + std::to_string(rank_) + ")");
  }
  buffers_.kernels.run(work);
  for (const MeshCall& call : work.mesh) run_mesh_call(call);
}

void CpuBackend::run_mesh_call(const MeshCall& call) {
  if (call.axis != MeshAxis::tensor || tensor_ == MPI_COMM_NULL)
    throw ExecutionError(
        "a mesh collective on a group the run has none of (the harness runs tensor "
        "parallelism's collectives only)");
  const std::int64_t per_rank = elements_per_rank(call.bytes, tensor_ranks_);
  const std::int64_t count = call.kind == CollectiveKind::all_reduce ? per_rank * tensor_ranks_ : per_rank;
  // Sized for every task's calls by reserve(): the compute thread never grows them while it runs.
  validate::run_collective(call.kind, tensor_, buffers_.mesh_send.data(), buffers_.mesh_recv.data(), count,
                           timeout_seconds_, "a tensor-parallel collective", PollRest::yield);
}

void CpuBackend::run_collective(const Task& task) {
  if (rank_ == faults_.stall_rank && !stalled_) {
    stalled_ = true;
    std::this_thread::sleep_for(std::chrono::duration<double>(faults_.stall_seconds));
  }
  const int ranks = groups_.size(task.group);
  const std::int64_t per_rank = elements_per_rank(task.total_bytes, ranks);
  const std::int64_t count = task.kind == CollectiveKind::all_reduce ? per_rank * ranks : per_rank;
  const auto needed = static_cast<std::size_t>(per_rank * ranks);
  if (buffers_.send.size() < needed) buffers_.send.assign(needed, 1.0f);
  if (buffers_.recv.size() < needed) buffers_.recv.assign(needed, 0.0f);
  validate::run_collective(task.kind, groups_.comm(task.group), buffers_.send.data(), buffers_.recv.data(),
                           count, timeout_seconds_, task.name,
                           // Yield, never sleep: MPI moves the collective only while it is polled, and
                           // 20 us sleeps had made the iterations' collectives about twice as slow as
                           // bench's (under overlap, the yield still hands the core to the products).
                           PollRest::yield);
}

}  // namespace shardscope::validate
