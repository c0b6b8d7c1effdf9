// `shardscope-validate run`: executes each plan's iteration program on every rank with the cpu-mpi backend
// and gathers iteration times and counting-allocator peaks (rank 0 holds the result).
#pragma once

#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/scenario.hpp"
#include "validate/core/measurements.hpp"
#include "validate/core/validation_plans.hpp"
#include "validate/cpu/cpu_backend.hpp"

namespace shardscope::validate {

struct RunOptions {
  std::string scenario_label;  // the scenario's path or name, recorded in each result
  double compute_scale = 1;
  int warmup_iterations = 1;
  int iterations = 2;
  double timeout_seconds = 60;
  FaultInjection faults;
};

// Runs every plan: its iteration program (the scenario's execution options: overlap, prefetch depth,
// buckets) on the world's ranks, warm-up iterations then measured ones. Throws InputError-like
// std::invalid_argument when the world's size is not the scenario's GPU count, ExecutionError when a run
// fails.
std::vector<IterationResult> run_plans(const Scenario& scenario, const Calibration& calibration,
                                       const std::vector<ValidationPlan>& plans, const RunOptions& options);

// Which plan ran: the planner's plan digest (planner/core/digest.hpp), the one `compare` checks.
std::string plan_digest_text(const Plan& plan);

}  // namespace shardscope::validate
