// The cpu-mpi backend's `run`: Eigen + MPI backends on communicators and buffers the plans of a run share.
#include "validate/cpu/run_plans.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "validate/cpu/cpu_backend.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

// What the plans of one cpu-mpi run share on a rank: the buffers (CpuBuffers says why) and the MPI groups,
// one set per group size, so that plans with the same tasks also run them on the same communicators.
// Under tensor parallelism (degree T) world rank w is index w mod T of tensor-parallel group w / T (its
// GPUs consecutive inside a node, mesh.hpp) and data-parallel rank d = w / T among the ranks of its index
// (context ranks included): the plan's groups are made over those; the TP collectives run on the
// tensor-parallel group, context parallelism's exchange on the C consecutive data-parallel ranks d / C,
// expert parallelism's all-to-alls on the E consecutive data-parallel ranks d / E.
struct CpuShared {
  CpuShared(int tensor_degree, int context_degree, int expert_degree) {
    const int w = world_rank();
    const int t = std::max(1, tensor_degree);
    if (t > 1) {
      SHARDSCOPE_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, w % t, w, &data_parallel));
      SHARDSCOPE_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, w / t, w, &mesh.tensor));
    }
    if (context_degree > 1) {  // context_degree consecutive data-parallel ranks of one tensor index
      const int color = (w / t) / context_degree * t + w % t;
      SHARDSCOPE_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, w, &mesh.context));
    }
    if (expert_degree > 1) {  // expert_degree consecutive data-parallel ranks of one tensor index
      const int color = (w / t) / expert_degree * t + w % t;
      SHARDSCOPE_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, w, &mesh.expert));
    }
  }
  ~CpuShared() {
    groups.clear();
    for (MPI_Comm* c : {&data_parallel, &mesh.tensor, &mesh.context, &mesh.expert})
      if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  }
  CpuShared(const CpuShared&) = delete;
  CpuShared& operator=(const CpuShared&) = delete;
  CpuBuffers buffers;
  MPI_Comm data_parallel = MPI_COMM_NULL;  // tensor parallelism: the ranks of this rank's index
  MeshComms mesh;
  std::map<int, std::unique_ptr<MpiGroups>> groups;  // by group size
  // Collective over every rank on first use of a size: every rank prepares the plans in one order.
  MpiGroups& groups_of(int group_size) {
    std::unique_ptr<MpiGroups>& g = groups[group_size];
    if (!g)
      g = std::make_unique<MpiGroups>(group_size,
                                      data_parallel == MPI_COMM_NULL ? MPI_COMM_WORLD : data_parallel);
    return *g;
  }
};

// The cpu-mpi side of a plan: the Eigen + MPI backend on the shared groups of the plan's group size.
class CpuPlanBackend : public PlanBackend {
 public:
  CpuPlanBackend(const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work,
                 CpuShared& shared, const RunOptions& options)
      : backend_(shared.groups_of(plan.group_size), shared.buffers, options.timeout_seconds, options.faults,
                 shared.mesh) {
    backend_.reserve(program, work);
  }
  ExecutionBackend& backend() override { return backend_; }

 private:
  CpuBackend backend_;
};

}  // namespace

std::vector<MeasuredIteration> run_plans(const Scenario& scenario, const Calibration& calibration,
                                         const std::vector<ValidationPlan>& plans,
                                         const RunOptions& options) {
  CpuShared shared(scenario.mesh.tensor.degree, scenario.mesh.tensor.context, scenario.mesh.tensor.expert);
  return run_plans_with(
      scenario, calibration, plans, options, world_size(),
      [&](const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work) {
        return std::make_unique<CpuPlanBackend>(plan, program, work, shared, options);
      });
}

}  // namespace shardscope::validate
