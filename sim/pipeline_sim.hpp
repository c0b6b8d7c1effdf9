// Simulated pipeline: each stage's iteration program on its GPUs of one platform, then the schedule run op by
// op on every GPU of every stage with the activations and their gradients sent as flows between the stages.
#pragma once

#include <cstdint>
#include <vector>

#include "exchange/simulation_job.hpp"
#include "planner/core/calibration.hpp"
#include "planner/core/pipeline_schedule.hpp"
#include "planner/core/scenario.hpp"
#include "planner/report/pipeline_search.hpp"

namespace shardscope::sim {

// One stage as simulated: its times per micro-batch from its own program (the planner's StageTiming,
// simulated), and how it went in the schedule's run.
struct SimulatedStage {
  double step_seconds = 0;     // the program at m + 1 micro-steps less at m
  double forward_seconds = 0;  // the step's forward part (its compute's share, as the planner splits it)
  double tail_seconds = 0;     // the program at m micro-steps less m steps
  double end_seconds = 0;      // its tail's end in the schedule's run (its latest GPU)
  double busy_seconds = 0;     // forwards, backwards and tail
  double idle_seconds = 0;     // the run's iteration less busy_seconds
};

struct PipelineSimulation {
  std::vector<SimulatedStage> stages;
  double iteration_seconds = 0;  // the schedule's run: its last GPU's tail end
  std::int64_t sends = 0;        // activation and gradient flows between stages' GPUs
  double mean_send_seconds = 0;  // a flow's time from its start to its arrival
  double slowest_send_seconds = 0;
  int platform_gpus = 0;        // SimGrid hosts (tensor-parallel groups count once: the data-parallel view)
  int stage_programs = 0;       // distinct stage programs simulated, each at m and m + 1 micro-steps
  std::int64_t activities = 0;  // estimated: the stage programs' and the schedule's ops and sends
  // The run of each stage's first GPU (rank 0 of its data parallelism) as pipeline_schedule.hpp gives the
  // planner's: its ops, its sends from their start to their flow's arrival, its tail; busy and idle as above.
  ScheduledPipeline first_ranks;
};

// Simulates `option` (a pipeline of `search` for `whole`, fitting). The platform is the whole cluster (its
// data-parallel view under tensor parallelism); stage s's rank i is the platform's rank s x R + i (R its
// data-parallel ranks), as pipeline_stage_cluster places the stages. Each distinct stage program runs alone
// on the first R ranks at m and at m + 1 micro-steps (its collectives as flows, as simulate_iteration runs
// them; the stages' platforms are copies); then every stage rank runs the schedule's order (pipeline_order):
// an op starts when its GPU is free and its input has arrived, each forward or backward a timer of its
// simulated duration, each output a flow of option.boundary_bytes to the same rank of the receiving stage,
// all of them sharing the links; the sending GPU waits for its flow where the runtime's sends block; each
// GPU's tail after its last op. The stages' own collectives are not on the links during that run. Throws
// SimulationError past the simulator's limits or when SimGrid fails, InputError for a stage plan its scenario
// refuses. One engine per process, as simulate_iteration.
PipelineSimulation simulate_pipeline(const Scenario& whole, const PipelineSearch& search,
                                     const PipelineOption& option, const Calibration& calibration,
                                     const IterationOptions& options);

}  // namespace shardscope::sim
