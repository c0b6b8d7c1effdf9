// The cuda-nccl execution backend: cuBLAS work on the compute stream, NCCL collectives on the plan's groups
// on the communication stream, each task waited for through an event with a deadline. Emulating one rank of a
// bigger plan on one GPU, each collective is a device-to-device copy of its buffer's bytes instead, timed
// with CUDA events and summed apart.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "validate/core/executor.hpp"
#include "validate/cuda/cublas_kernels.hpp"
#include "validate/cuda/cuda_device.hpp"
#include "validate/cuda/nccl_groups.hpp"

namespace shardscope::validate {

// The group sizes a backend runs collectives over: the NCCL groups' own, or an emulated rank's.
struct GroupSizes {
  int intra = 1, inter = 1, global = 1;
  int of(GroupKind group) const;
};

class CudaBackend : public ExecutionBackend {
 public:
  // Real collectives on `groups`.
  CudaBackend(const CudaDevice& device, NcclGroups& groups, double timeout_seconds);
  // Emulation: no communicators; collectives become copies sized by the emulated rank's `sizes`.
  CudaBackend(const CudaDevice& device, GroupSizes sizes, double timeout_seconds);
  ~CudaBackend() override;

  // Sizes the kernels' scratch and the collectives' buffers for every task of the program.
  void reserve(const IterationProgram& program, const std::vector<KernelWork>& work);
  void run_compute(const KernelWork& work) override;
  void run_collective(const Task& task) override;

  // Event-timed seconds of the copies that stood in for collectives since the last call (emulation).
  double take_emulated_collective_seconds();

 private:
  const CudaDevice& device_;
  NcclGroups* groups_ = nullptr;  // null when emulating
  GroupSizes sizes_;
  double timeout_seconds_;
  CublasKernels kernels_;
  DeviceBuffer send_, recv_;
  cudaEvent_t copy_start_ = nullptr, copy_end_ = nullptr;
  double emulated_seconds_ = 0;
};

}  // namespace shardscope::validate
