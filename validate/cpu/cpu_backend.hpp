// The cpu-mpi execution backend: Eigen kernels on the compute stream, MPI collectives on the plan's groups on
// the communication stream, with faults that tests inject (a failing or a stalled rank).
#pragma once

#include <vector>

#include "validate/core/collective_buffer.hpp"
#include "validate/core/executor.hpp"
#include "validate/cpu/eigen_kernels.hpp"
#include "validate/mpi/mpi_comm.hpp"
#include "validate/mpi/plan_runs.hpp"

namespace shardscope::validate {

// A rank's kernel scratch and collective buffers. The plans of one run share them: they run one at a time on
// a rank, and with buffers of their own, plans with the same tasks measured up to 9 % apart on the build
// machine (each found its own buffers' placement in memory and the caches).
// A rank's mesh groups (MPI_COMM_NULL: that axis has one rank).
struct MeshComms {
  MPI_Comm tensor = MPI_COMM_NULL;
  MPI_Comm context = MPI_COMM_NULL;
  MPI_Comm expert = MPI_COMM_NULL;
};

struct CpuBuffers {
  EigenKernels kernels;
  std::vector<float> send, recv;
  std::vector<float> mesh_send, mesh_recv;  // the compute thread's (mesh collectives), apart from the above
};

class CpuBackend : public ExecutionBackend {
 public:
  // `buffers` must outlive the backend; it grows them to what the program needs. `mesh`: this rank's tensor-
  // and context-parallel groups, where a compute task's mesh collectives run (MPI_COMM_NULL: none): the
  // blocking ones after its products, the overlapped ones (context parallelism's K/V exchange) started before
  // them and waited for after.
  CpuBackend(const MpiGroups& groups, CpuBuffers& buffers, double timeout_seconds, FaultInjection faults,
             MeshComms mesh = {});
  // Sizes the kernels' scratch and the collectives' buffers for every task of the program.
  void reserve(const IterationProgram& program, const std::vector<KernelWork>& work);
  void run_compute(const KernelWork& work) override;
  void run_collective(const Task& task) override;

 private:
  // The call's group and element count (all-reduce: the buffer; else one rank's part).
  struct MeshTarget {
    MPI_Comm comm = MPI_COMM_NULL;
    std::int64_t count = 0;
    std::int64_t elements = 0;  // its send and receive buffers' size
    bool all_to_all = false;
  };
  MeshTarget mesh_target(const MeshCall& call) const;

  const MpiGroups& groups_;
  MeshComms mesh_;
  int tensor_ranks_ = 1, context_ranks_ = 1, expert_ranks_ = 1;
  double timeout_seconds_;
  FaultInjection faults_;
  int rank_;
  bool stalled_ = false;
  CpuBuffers& buffers_;
};

}  // namespace shardscope::validate
