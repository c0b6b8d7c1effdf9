// One plan at a time: program, executor, backend; iterations timed per rank; results gathered on rank 0.
#include "validate/mpi/plan_runs.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "planner/core/digest.hpp"
#include "planner/core/mesh.hpp"
#include "planner/program/memory_peak.hpp"
#include "planner/report/plan_json.hpp"
#include "validate/core/host_memory.hpp"
#include "validate/core/median.hpp"
#include "validate/core/round_levels.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

std::vector<double> gather_on_root(double value) {
  if (!mpi_in_use()) return {value};
  std::vector<double> all(static_cast<std::size_t>(world_size()));
  SHARDSCOPE_MPI_CHECK(MPI_Gather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  return all;
}

// Every rank's list (all of one length) on rank 0, one list per rank.
std::vector<std::vector<double>> gather_lists_on_root(const std::vector<double>& values) {
  if (!mpi_in_use()) return {values};
  const int n = static_cast<int>(values.size());
  std::vector<double> all(static_cast<std::size_t>(n) * static_cast<std::size_t>(world_size()));
  SHARDSCOPE_MPI_CHECK(
      MPI_Gather(values.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  std::vector<std::vector<double>> out;
  for (std::size_t r = 0; r < static_cast<std::size_t>(world_size()); ++r)
    out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(r * n),
                     all.begin() + static_cast<std::ptrdiff_t>((r + 1) * n));
  return out;
}

std::vector<double> gather_if(const std::optional<double>& value) {
  return value ? gather_on_root(*value) : std::vector<double>{};
}

// One plan made ready to run: its program, executor, backend and allocator, and what its iterations measured.
struct PlanRun {
  const ValidationPlan* plan = nullptr;
  IterationProgram program;
  std::unique_ptr<ProgramExecutor> executor;
  std::unique_ptr<PlanBackend> backend;
  std::unique_ptr<CountingAllocator> allocator;
  std::vector<double> seconds;                    // this rank's measured iterations
  std::vector<std::vector<double>> task_seconds;  // each task's time in every measured iteration
  std::vector<double> page_faults;                // this process's minor page faults in each
  std::vector<double> compute_seconds;            // this rank's compute tasks in each
  double peak = 0;
  IterationMeasurement last;
};

std::unique_ptr<PlanRun> prepare(const Scenario& scenario, const Calibration& calibration,
                                 const ValidationPlan& vp, const RunOptions& options,
                                 const PlanBackendFactory& make_backend) {
  auto run = std::make_unique<PlanRun>();
  run->plan = &vp;
  const ExecutionOptions& exec = scenario.execution;
  run->program =
      build_iteration_program(ValidScenario(scenario), calibration, vp.plan,
                              ProgramOptions{exec.prefetch_depth, !exec.overlap, exec.bucket_bytes});
  ExecutorOptions executor_options;
  executor_options.scale = {vp.plan.micro_batch, options.compute_scale};
  executor_options.wait_timeout_seconds = options.timeout_seconds;
  run->executor = std::make_unique<ProgramExecutor>(scenario.model, run->program, executor_options);
  std::vector<KernelWork> work;
  for (const Task& task : run->program.tasks)
    work.push_back(kernel_work(scenario.model, task, executor_options.scale));
  run->backend = make_backend(vp.plan, run->program, work);
  MemorySource* source = run->backend->memory_source();
  run->allocator = source != nullptr ? std::make_unique<CountingAllocator>(*source)
                                     : std::make_unique<CountingAllocator>();
  run->executor->allocate_resident(*run->allocator);
  return run;
}

void run_once(PlanRun& run, bool measured) {
  world_barrier();
  if (!measured) {
    run.executor->run_iteration(run.backend->backend(), *run.allocator);
    return;
  }
  run.backend->start_measured_iteration();
  const long faults_before = minor_page_faults();
  run.last = run.executor->run_iteration(run.backend->backend(), *run.allocator);
  run.page_faults.push_back(static_cast<double>(minor_page_faults() - faults_before));
  run.seconds.push_back(run.last.iteration_seconds);
  double compute = 0;
  for (const MeasuredTask& t : run.last.tasks) compute += t.kind == "compute" ? t.seconds : 0;
  run.compute_seconds.push_back(compute);
  run.task_seconds.resize(run.last.tasks.size());
  for (std::size_t i = 0; i < run.last.tasks.size(); ++i)
    run.task_seconds[i].push_back(run.last.tasks[i].seconds);
  run.peak = std::max(run.peak, run.last.peak_bytes);
}

// `estimate_seconds`: this rank's time for the plan (round_normalized_medians over the plans run together).
MeasuredIteration result_of(PlanRun& run, double estimate_seconds, const RunOptions& options) {
  const Plan& plan = run.plan->plan;
  const PlanBackend::Extra extra = run.backend->extra();
  MeasuredIteration r;
  r.scenario = options.scenario_label;
  r.strategy = run.plan->strategy;
  r.plan_digest = plan_digest_text(plan);
  r.micro_batch = plan.micro_batch;
  r.micro_steps = plan.gradient_accumulation_steps;
  r.iteration_seconds_per_rank = gather_on_root(estimate_seconds);
  r.measured_seconds_per_rank = gather_lists_on_root(run.seconds);
  r.peak_bytes_per_rank = gather_on_root(extra.peak_bytes.value_or(run.peak));
  if (extra.peak_bytes) r.counted_peak_bytes_per_rank = gather_on_root(run.peak);
  r.reserved_peak_bytes_per_rank = gather_if(extra.reserved_peak_bytes);
  r.device_peak_bytes_per_rank = gather_if(extra.device_peak_bytes);
  r.emulated_collective_seconds_per_rank = gather_if(extra.emulated_collective_seconds);
  r.page_faults_per_rank = gather_on_root(median(run.page_faults));
  r.compute_seconds_per_rank = gather_on_root(median(run.compute_seconds));
  double sum = 0;
  for (double s : r.iteration_seconds_per_rank) sum += s;
  r.iteration_seconds = sum / static_cast<double>(r.iteration_seconds_per_rank.size());
  r.peak_bytes = *std::max_element(r.peak_bytes_per_rank.begin(), r.peak_bytes_per_rank.end());
  // Every iteration runs the program's tasks in one order: a task's time is its median over the iterations.
  r.tasks = std::move(run.last.tasks);
  for (std::size_t i = 0; i < r.tasks.size() && i < run.task_seconds.size(); ++i)
    r.tasks[i].seconds = median(run.task_seconds[i]);
  r.measured_iterations = options.iterations;
  r.planner_iteration_seconds = plan.predicted.iteration_seconds;
  r.planner_peak_bytes = plan.predicted.peak_memory_bytes;
  r.program_peak_bytes = program_peak_bytes(run.program);
  return r;
}

}  // namespace

std::string plan_digest_text(const Plan& plan) { return format_digest(shardscope::plan_digest(plan)); }

std::vector<MeasuredIteration> run_plans_with(const Scenario& scenario, const Calibration& calibration,
                                              const std::vector<ValidationPlan>& plans,
                                              const RunOptions& options, int ranks,
                                              const PlanBackendFactory& make_backend) {
  // A tensor-parallel scenario's plans are of its data-parallel view; its ranks are every GPU.
  const int gpus = physical_gpus(scenario);
  if (ranks != gpus) {
    throw std::invalid_argument(scenario.source_file + ": cluster: the scenario's plans are for " +
                                std::to_string(gpus) + " GPUs (" + mesh_text(scenario) + ") but " +
                                std::to_string(ranks) + " ranks were launched; launch mpirun -n " +
                                std::to_string(gpus));
  }
  // Strategies that give one plan (on two ranks: ZeRO-2 and the shardscope plan, OSDP choosing plain DP
  // everywhere and DDP) run it once: its measurement is both strategies', as their prediction is; measured
  // twice, the same tasks would come out a few per cent apart and rank the two by noise.
  std::vector<std::size_t> same_as(plans.size());
  std::map<std::string, std::size_t> first_by_digest;
  std::vector<std::size_t> distinct;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto [at, inserted] = first_by_digest.emplace(plan_digest_text(plans[i].plan), i);
    same_as[i] = at->second;
    if (inserted) distinct.push_back(i);
  }
  // Interleaved: every plan ready at once, then round after round one iteration of each, so a slow spell
  // of a shared machine falls on every plan alike instead of on whichever ran then. Round i starts at plan
  // i mod P, so that no plan always runs first after the barrier of a round or always after the same plan
  // (whose buffers it finds in the caches), and a plan's time is its median relative to its rounds
  // (round_normalized_medians). Sequential: one plan at a time (its memory freed before the next is made
  // ready), its time the median of its iterations.
  const std::size_t together = options.interleave ? std::max<std::size_t>(1, distinct.size()) : 1;
  std::map<std::size_t, MeasuredIteration> measured;  // by index of the plan in `plans`
  for (std::size_t first = 0; first < distinct.size(); first += together) {
    std::vector<std::unique_ptr<PlanRun>> runs;
    for (std::size_t i = first; i < std::min(distinct.size(), first + together); ++i)
      runs.push_back(prepare(scenario, calibration, plans[distinct[i]], options, make_backend));
    const std::size_t n = runs.size();
    for (int i = 0; i < options.warmup_iterations; ++i)
      for (std::size_t k = 0; k < n; ++k) run_once(*runs[(static_cast<std::size_t>(i) + k) % n], false);
    for (int i = 0; i < options.iterations; ++i)
      for (std::size_t k = 0; k < n; ++k) run_once(*runs[(static_cast<std::size_t>(i) + k) % n], true);
    std::vector<std::vector<double>> seconds;
    for (const auto& run : runs) seconds.push_back(run->seconds);
    const std::vector<double> estimates = round_normalized_medians(seconds);
    for (std::size_t k = 0; k < n; ++k)
      measured.emplace(distinct[first + k], result_of(*runs[k], estimates[k], options));
  }
  std::vector<MeasuredIteration> out;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    out.push_back(measured.at(same_as[i]));
    if (same_as[i] != i) {
      out.back().strategy = plans[i].strategy;
      out.back().same_plan_as = plans[same_as[i]].strategy;
    }
  }
  return out;
}

}  // namespace shardscope::validate
