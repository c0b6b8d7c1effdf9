// One plan at a time: program, executor, backend; iterations timed per rank; results gathered on rank 0.
#include "validate/cpu/run_plans.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "planner/core/digest.hpp"
#include "planner/io/plan_json.hpp"
#include "planner/program/memory_peak.hpp"

namespace shardscope::validate {

namespace {

std::vector<double> gather_on_root(double value) {
  std::vector<double> all(static_cast<std::size_t>(world_size()));
  SHARDSCOPE_MPI_CHECK(MPI_Gather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  return all;
}

std::vector<double> gather_if(const std::optional<double>& value) {
  return value ? gather_on_root(*value) : std::vector<double>{};
}

// The cpu-mpi side of a plan: MPI groups of the plan's group size and the Eigen + MPI backend.
class CpuPlanBackend : public PlanBackend {
 public:
  CpuPlanBackend(const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work,
                 const RunOptions& options)
      : groups_(plan.group_size), backend_(groups_, options.timeout_seconds, options.faults) {
    backend_.reserve(program, work);
  }
  ExecutionBackend& backend() override { return backend_; }

 private:
  MpiGroups groups_;
  CpuBackend backend_;
};

IterationResult run_plan(const Scenario& scenario, const Calibration& calibration, const ValidationPlan& vp,
                         const RunOptions& options, const PlanBackendFactory& make_backend) {
  const Plan& plan = vp.plan;
  const ExecutionOptions& exec = scenario.execution;
  const IterationProgram program = build_iteration_program(scenario, calibration, plan, exec.prefetch_depth,
                                                           !exec.overlap, exec.bucket_bytes);
  ExecutorOptions executor_options;
  executor_options.scale = {plan.micro_batch, options.compute_scale};
  executor_options.wait_timeout_seconds = options.timeout_seconds;
  const ProgramExecutor executor(scenario.model, program, executor_options);
  std::vector<KernelWork> work;
  for (const Task& task : program.tasks)
    work.push_back(kernel_work(scenario.model, task, executor_options.scale));
  const std::unique_ptr<PlanBackend> backend = make_backend(plan, program, work);

  MemorySource* source = backend->memory_source();
  auto allocator = source != nullptr ? std::make_unique<CountingAllocator>(*source)
                                     : std::make_unique<CountingAllocator>();
  executor.allocate_resident(*allocator);
  for (int i = 0; i < options.warmup_iterations; ++i) {
    SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    executor.run_iteration(backend->backend(), *allocator);
  }
  double seconds = 0, peak = 0;
  IterationMeasurement last;
  for (int i = 0; i < options.iterations; ++i) {
    SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    backend->start_measured_iteration();
    last = executor.run_iteration(backend->backend(), *allocator);
    seconds += last.iteration_seconds;
    peak = std::max(peak, last.peak_bytes);
  }
  const PlanBackend::Extra extra = backend->extra();
  IterationResult r;
  r.scenario = options.scenario_label;
  r.strategy = vp.strategy;
  r.plan_digest = plan_digest_text(plan);
  r.micro_batch = plan.micro_batch;
  r.micro_steps = plan.gradient_accumulation_steps;
  r.iteration_seconds_per_rank = gather_on_root(seconds / std::max(1, options.iterations));
  r.peak_bytes_per_rank = gather_on_root(extra.peak_bytes.value_or(peak));
  if (extra.peak_bytes) r.counted_peak_bytes_per_rank = gather_on_root(peak);
  r.reserved_peak_bytes_per_rank = gather_if(extra.reserved_peak_bytes);
  r.device_peak_bytes_per_rank = gather_if(extra.device_peak_bytes);
  r.emulated_collective_seconds_per_rank = gather_if(extra.emulated_collective_seconds);
  double sum = 0;
  for (double s : r.iteration_seconds_per_rank) sum += s;
  r.iteration_seconds = sum / static_cast<double>(r.iteration_seconds_per_rank.size());
  r.peak_bytes = *std::max_element(r.peak_bytes_per_rank.begin(), r.peak_bytes_per_rank.end());
  r.tasks = std::move(last.tasks);
  r.measured_iterations = options.iterations;
  r.planner_iteration_seconds = plan.predicted.iteration_seconds;
  r.planner_peak_bytes = plan.predicted.peak_memory_bytes;
  r.program_peak_bytes = program_peak_bytes(program);
  return r;
}

}  // namespace

std::string plan_digest_text(const Plan& plan) { return format_digest(shardscope::plan_digest(plan)); }

std::vector<IterationResult> run_plans_with(const Scenario& scenario, const Calibration& calibration,
                                            const std::vector<ValidationPlan>& plans,
                                            const RunOptions& options, int ranks,
                                            const PlanBackendFactory& make_backend) {
  if (ranks != scenario.cluster.gpus()) {
    throw std::invalid_argument(scenario.source_file + ": cluster: the scenario's plans are for " +
                                std::to_string(scenario.cluster.gpus()) +
                                " GPUs (nodes x gpus_per_node) but " + std::to_string(ranks) +
                                " ranks were launched; launch mpirun -n " +
                                std::to_string(scenario.cluster.gpus()));
  }
  std::vector<IterationResult> out;
  for (const ValidationPlan& plan : plans)
    out.push_back(run_plan(scenario, calibration, plan, options, make_backend));
  return out;
}

std::vector<IterationResult> run_plans(const Scenario& scenario, const Calibration& calibration,
                                       const std::vector<ValidationPlan>& plans, const RunOptions& options) {
  return run_plans_with(
      scenario, calibration, plans, options, world_size(),
      [&](const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work) {
        return std::make_unique<CpuPlanBackend>(plan, program, work, options);
      });
}

}  // namespace shardscope::validate
