// `shardscope-validate run` on the cpu-mpi backend: every plan on the world's ranks, Eigen products and MPI
// collectives (rank 0 holds the result).
#pragma once

#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/scenario.hpp"
#include "validate/core/validation_plans.hpp"
#include "validate/measurements/measurements.hpp"
#include "validate/mpi/plan_runs.hpp"

namespace shardscope::validate {

// Runs every plan: its iteration program (the scenario's execution options: overlap, prefetch depth,
// buckets) on the world's ranks, warm-up iterations then measured ones. Throws InputError-like
// std::invalid_argument when the world's size is not the scenario's GPU count, ExecutionError when a run
// fails.
std::vector<MeasuredIteration> run_plans(const Scenario& scenario, const Calibration& calibration,
                                         const std::vector<ValidationPlan>& plans, const RunOptions& options);

}  // namespace shardscope::validate
