// `shardscope-validate run-pipeline` on the cpu-mpi backend: the pipeline `plan` chooses, run on the world's
// ranks (stages x data-parallel ranks): each stage's own program, its forwards and backwards in the
// schedule's order (each forward or backward the part of its micro-step's tasks, collectives included, run in
// program order on one thread), activations and their gradients sent between the stages' ranks with MPI, then
// its tail.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/pipeline.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope::validate {

struct PipelineRunOptions {
  int iterations = 2;  // measured
  int warmup = 1;      // untimed, before them
  double compute_scale = 1;
  double timeout_seconds = 60;  // the longest any receive, send or collective may wait
};

// One rank's run: its stage, what its ops took (means over the measured iterations), and each iteration.
struct PipelineRankRun {
  int rank = 0;
  int stage = 0;
  int data_parallel_rank = 0;
  std::vector<double> iteration_seconds;  // per measured iteration: barrier to its tail's end
  double forward_seconds = 0;             // mean of one forward (its micro-step's tasks before the backward)
  double backward_seconds = 0;            // mean of one backward (the rest, recomputes included)
  double tail_seconds = 0;                // mean of the tail (the update's collectives and compute)
  double waiting_seconds = 0;             // mean per iteration spent waiting on receives and sends
  int ops = 0;                            // forwards and backwards per iteration
  int sends = 0;                          // activations and gradients sent per iteration
};

struct PipelineRun {
  std::string scenario;
  std::string pipeline;  // pipeline_text: "PP 2 (1f1b) x DP 2 (4 GPUs)"
  int stages = 0;
  int data_parallel = 0;
  int micro_batches = 0;
  std::int64_t micro_batch = 0;
  double send_bytes = 0;  // one boundary tensor, compute_scale applied
  double compute_scale = 1;
  double planner_iteration_seconds = 0;     // the planner's run of the same pipeline (unscaled)
  std::vector<StageTiming> planner_stages;  // its stages' steps and tails
  std::vector<PipelineRankRun> ranks;       // every rank's (rank 0 holds them all)
  double measured_iteration_seconds = 0;    // median over iterations of the slowest rank's
  // The planner's schedule (run_pipeline_schedule) over the measured parts: each stage's mean forward,
  // backward and tail over its ranks, no send time. The planner's composition checked on this machine,
  // whatever its speed: against measured_iteration_seconds, the sends and waits it leaves out.
  double composed_iteration_seconds = 0;
};

// Plans `whole` as `plan --pp` does and runs its fastest pipeline on the world's ranks. Throws
// std::invalid_argument when the world is not the scenario's GPU count, no pipeline fits, or the pipeline is
// one the harness does not run (the interleaved schedule, tensor or context parallelism: each refused with
// the reason); ExecutionError when a wait passes the timeout.
PipelineRun run_pipeline(const Scenario& whole, const Calibration& calibration,
                         const PipelineRunOptions& options);

nlohmann::ordered_json pipeline_run_json(const PipelineRun& run);

}  // namespace shardscope::validate
