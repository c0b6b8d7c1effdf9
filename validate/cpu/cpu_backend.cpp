// Compute = EigenKernels::run; collective = run_collective on the task's group with buffers of its bytes.
#include "validate/cpu/cpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace shardscope::validate {

CpuBackend::CpuBackend(const MpiGroups& groups, CpuBuffers& buffers, double timeout_seconds,
                       FaultInjection faults, MeshComms mesh)
    : groups_(groups),
      mesh_(mesh),
      timeout_seconds_(timeout_seconds),
      faults_(faults),
      rank_(world_rank()),
      buffers_(buffers) {
  if (mesh_.tensor != MPI_COMM_NULL) SHARDSCOPE_MPI_CHECK(MPI_Comm_size(mesh_.tensor, &tensor_ranks_));
  if (mesh_.context != MPI_COMM_NULL) SHARDSCOPE_MPI_CHECK(MPI_Comm_size(mesh_.context, &context_ranks_));
  if (mesh_.expert != MPI_COMM_NULL) SHARDSCOPE_MPI_CHECK(MPI_Comm_size(mesh_.expert, &expert_ranks_));
}

CpuBackend::MeshTarget CpuBackend::mesh_target(const MeshCall& call) const {
  const char* names[] = {"tensor", "context", "expert"};
  const MPI_Comm comms[] = {mesh_.tensor, mesh_.context, mesh_.expert};
  const int sizes[] = {tensor_ranks_, context_ranks_, expert_ranks_};
  const auto axis = static_cast<std::size_t>(call.axis);
  MeshTarget t;
  t.comm = comms[axis];
  if (t.comm == MPI_COMM_NULL)
    throw ExecutionError(std::string("a ") + names[axis] +
                         "-parallel collective, and this run has no such group");
  const int ranks = sizes[axis];
  const std::int64_t per_rank = elements_per_rank(call.bytes, ranks);
  // An all-to-all sends each rank of the group its part (per_rank elements) out of the whole buffer.
  t.count = call.kind == CollectiveKind::all_reduce && !call.all_to_all ? per_rank * ranks : per_rank;
  t.elements = per_rank * ranks;
  t.all_to_all = call.all_to_all;
  return t;
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
  std::size_t mesh = 1;  // a task's calls side by side: its overlapped ones are in flight together
  for (const KernelWork& w : work) {
    std::size_t task = 0;
    for (const MeshCall& call : w.mesh) task += static_cast<std::size_t>(mesh_target(call).elements);
    mesh = std::max(mesh, task);
  }
  if (buffers_.mesh_send.size() < mesh) buffers_.mesh_send.assign(mesh, 1.0f);
  if (buffers_.mesh_recv.size() < mesh) buffers_.mesh_recv.assign(mesh, 0.0f);
}

void CpuBackend::run_compute(const KernelWork& work) {
  if (rank_ == faults_.fail_rank) {
    throw ExecutionError("injected failure (--fail-rank " + std::to_string(rank_) + ")");
  }
  // The mesh buffers were sized for every task's calls by reserve(): this thread never grows them.
  std::size_t offset = 0;
  const auto start = [&](const MeshCall& call) {
    const MeshTarget t = mesh_target(call);
    float* send = buffers_.mesh_send.data() + offset;
    float* recv = buffers_.mesh_recv.data() + offset;
    MPI_Request r = t.all_to_all ? start_all_to_all(t.comm, send, recv, t.count)
                                 : start_collective(call.kind, t.comm, send, recv, t.count);
    offset += static_cast<std::size_t>(t.elements);
    return r;
  };
  std::vector<MPI_Request> overlapped;
  for (const MeshCall& call : work.mesh)
    if (call.overlapped) overlapped.push_back(start(call));
  buffers_.kernels.run(work);
  for (MPI_Request& r : overlapped)
    wait_collective(r, timeout_seconds_, "a context-parallel exchange", PollRest::yield);
  for (const MeshCall& call : work.mesh) {
    if (call.overlapped) continue;
    MPI_Request r = start(call);
    wait_collective(r, timeout_seconds_, "a tensor-parallel collective", PollRest::yield);
  }
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
