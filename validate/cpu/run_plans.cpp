// The cpu-mpi backend's `run`: Eigen + MPI backends on communicators and buffers the plans of a run share.
#include "validate/cpu/run_plans.hpp"

#include <map>
#include <memory>

#include "validate/cpu/cpu_backend.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

// What the plans of one cpu-mpi run share on a rank: the buffers (CpuBuffers says why) and the MPI groups,
// one set per group size, so that plans with the same tasks also run them on the same communicators.
struct CpuShared {
  CpuBuffers buffers;
  std::map<int, std::unique_ptr<MpiGroups>> groups;  // by group size
  // Collective over every rank on first use of a size: every rank prepares the plans in one order.
  MpiGroups& groups_of(int group_size) {
    std::unique_ptr<MpiGroups>& g = groups[group_size];
    if (!g) g = std::make_unique<MpiGroups>(group_size);
    return *g;
  }
};

// The cpu-mpi side of a plan: the Eigen + MPI backend on the shared groups of the plan's group size.
class CpuPlanBackend : public PlanBackend {
 public:
  CpuPlanBackend(const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work,
                 CpuShared& shared, const RunOptions& options)
      : backend_(shared.groups_of(plan.group_size), shared.buffers, options.timeout_seconds, options.faults) {
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
  CpuShared shared;
  return run_plans_with(
      scenario, calibration, plans, options, world_size(),
      [&](const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work) {
        return std::make_unique<CpuPlanBackend>(plan, program, work, shared, options);
      });
}

}  // namespace shardscope::validate
