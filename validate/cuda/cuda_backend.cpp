// Compute = CublasKernels::run then a polled wait; collective = NCCL on the task's group, or an emulated
// copy.
#include "validate/cuda/cuda_backend.hpp"

#include <algorithm>

#include "validate/core/collective_buffer.hpp"
#include "validate/cuda/cuda_check.hpp"

namespace shardscope::validate {

int GroupSizes::of(GroupKind group) const {
  switch (group) {
    case GroupKind::intra:
      return intra;
    case GroupKind::inter:
      return inter;
    case GroupKind::global:
      break;
  }
  return global;
}

CudaBackend::CudaBackend(const CudaDevice& device, NcclGroups& groups, double timeout_seconds)
    : device_(device),
      groups_(&groups),
      sizes_{groups.size(GroupKind::intra), groups.size(GroupKind::inter), groups.size(GroupKind::global)},
      timeout_seconds_(timeout_seconds),
      kernels_(device.compute_stream()) {}

CudaBackend::CudaBackend(const CudaDevice& device, GroupSizes sizes, double timeout_seconds)
    : device_(device), sizes_(sizes), timeout_seconds_(timeout_seconds), kernels_(device.compute_stream()) {
  SHARDSCOPE_CUDA_CHECK(cudaEventCreate(&copy_start_));
  SHARDSCOPE_CUDA_CHECK(cudaEventCreate(&copy_end_));
}

CudaBackend::~CudaBackend() {
  if (copy_start_ != nullptr) cudaEventDestroy(copy_start_);
  if (copy_end_ != nullptr) cudaEventDestroy(copy_end_);
}

void CudaBackend::reserve(const IterationProgram& program, const std::vector<KernelWork>& work) {
  device_.make_current();
  kernels_.reserve(work);
  std::size_t largest = 4;
  for (const Task& task : program.tasks) {
    if (task.operator_index >= 0) continue;
    const int ranks = sizes_.of(task.group);
    largest =
        std::max(largest, static_cast<std::size_t>(elements_per_rank(task.total_bytes, ranks) * ranks) * 4);
  }
  send_.ensure(largest);
  recv_.ensure(largest);
}

void CudaBackend::run_compute(const KernelWork& work) {
  device_.make_current();
  kernels_.run(work);
  wait_for_stream(device_.compute_stream(), timeout_seconds_, "compute task");
}

void CudaBackend::run_collective(const Task& task) {
  device_.make_current();
  const int ranks = sizes_.of(task.group);
  if (ranks == 1) return;  // a group of one rank exchanges nothing (priced at zero)
  const std::int64_t per_rank = elements_per_rank(task.total_bytes, ranks);
  const std::int64_t count = task.kind == CollectiveKind::all_reduce ? per_rank * ranks : per_rank;
  const auto buffer_bytes = static_cast<std::size_t>(per_rank * ranks) * 4;
  send_.ensure(buffer_bytes);
  recv_.ensure(buffer_bytes);
  cudaStream_t stream = device_.comm_stream();
  if (groups_ != nullptr) {
    run_nccl_collective(task.kind, *groups_, task.group, send_.data(), recv_.data(), count, stream,
                        timeout_seconds_, task.name);
    return;
  }
  // Emulated: the whole buffer (the gathered, scattered or reduced bytes) copied once on the device.
  SHARDSCOPE_CUDA_CHECK(cudaEventRecord(copy_start_, stream));
  SHARDSCOPE_CUDA_CHECK(
      cudaMemcpyAsync(recv_.data(), send_.data(), buffer_bytes, cudaMemcpyDeviceToDevice, stream));
  SHARDSCOPE_CUDA_CHECK(cudaEventRecord(copy_end_, stream));
  wait_for_stream(stream, timeout_seconds_, task.name + " (emulated copy)");
  emulated_seconds_ += event_seconds(copy_start_, copy_end_);
}

double CudaBackend::take_emulated_collective_seconds() {
  const double seconds = emulated_seconds_;
  emulated_seconds_ = 0;
  return seconds;
}

}  // namespace shardscope::validate
