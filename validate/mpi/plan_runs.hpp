// `shardscope-validate run` over any backend: executes each plan's iteration program on every rank and
// gathers iteration times and counting-allocator peaks over MPI (rank 0 holds the result).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/scenario.hpp"
#include "validate/core/executor.hpp"
#include "validate/core/host_memory.hpp"
#include "validate/core/validation_plans.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

// Faults the tests inject into a run (each backend honours them).
struct FaultInjection {
  int fail_rank = -1;   // this rank throws at its first compute task
  int stall_rank = -1;  // this rank sleeps stall_seconds before its first collective
  double stall_seconds = 0;
};

struct RunOptions {
  std::string scenario_label;  // the scenario's path or name, recorded in each result
  double compute_scale = 1;
  int warmup_iterations = 1;
  int iterations = 2;  // measured; a plan's time is the median of its iterations on each rank
  // Round after round one iteration of every plan (all plans' buffers held at once), or each plan's
  // iterations in a row (one plan's memory at a time: what a GPU needs).
  bool interleave = false;
  double timeout_seconds = 60;
  FaultInjection faults;
};

// What a backend brings to one plan's run; run_plans_with drives it (program, executor, iterations, results).
class PlanBackend {
 public:
  virtual ~PlanBackend() = default;
  virtual ExecutionBackend& backend() = 0;
  // Where the counted buffers live (null: host blocks).
  virtual MemorySource* memory_source() { return nullptr; }
  // Before each measured iteration (a backend's own peak windows restart here).
  virtual void start_measured_iteration() {}
  // This rank's own measurements after the measured iterations; peak_bytes replaces the counting
  // allocator's as the measured peak (which is then kept as counted_peak_bytes_per_rank).
  struct Extra {
    std::optional<double> peak_bytes, reserved_peak_bytes, device_peak_bytes, emulated_collective_seconds;
  };
  virtual Extra extra() { return {}; }
};

// Makes the backend of one plan: its group size, program and every task's work.
using PlanBackendFactory = std::function<std::unique_ptr<PlanBackend>(
    const Plan& plan, const IterationProgram& program, const std::vector<KernelWork>& work)>;

// run_plans over any backend. `ranks` is how many ranks the run stands for (the world's size, or the plan's
// GPU count when one process emulates one of its ranks); it must be the scenario's GPU count.
std::vector<MeasuredIteration> run_plans_with(const Scenario& scenario, const Calibration& calibration,
                                              const std::vector<ValidationPlan>& plans,
                                              const RunOptions& options, int ranks,
                                              const PlanBackendFactory& make_backend);

// Which plan ran: the planner's plan digest (planner/core/digest.hpp), the one `compare` checks.
std::string plan_digest_text(const Plan& plan);

}  // namespace shardscope::validate
