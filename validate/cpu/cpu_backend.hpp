// The cpu-mpi execution backend: Eigen kernels on the compute stream, MPI collectives on the plan's groups on
// the communication stream, with faults that tests inject (a failing or a stalled rank).
#pragma once

#include <vector>

#include "validate/core/collective_buffer.hpp"
#include "validate/core/executor.hpp"
#include "validate/cpu/eigen_kernels.hpp"
#include "validate/cpu/mpi_comm.hpp"

namespace shardscope::validate {

struct FaultInjection {
  int fail_rank = -1;   // this rank throws at its first compute task
  int stall_rank = -1;  // this rank sleeps stall_seconds before its first collective
  double stall_seconds = 0;
};

class CpuBackend : public ExecutionBackend {
 public:
  CpuBackend(const MpiGroups& groups, double timeout_seconds, FaultInjection faults);
  // Sizes the kernels' scratch and the collectives' buffers for every task of the program.
  void reserve(const IterationProgram& program, const std::vector<KernelWork>& work);
  void run_compute(const KernelWork& work) override;
  void run_collective(const Task& task) override;

 private:
  const MpiGroups& groups_;
  double timeout_seconds_;
  FaultInjection faults_;
  int rank_;
  bool stalled_ = false;
  EigenKernels kernels_;
  std::vector<float> send_, recv_;
};

}  // namespace shardscope::validate
