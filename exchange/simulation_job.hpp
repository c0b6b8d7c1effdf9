// SimulationJob and IterationOptions: what a simulation is asked to do, as plain values that a parent
// process hands to a child (child_protocol.hpp); readable without SimGrid.
#pragma once

#include <cstdint>
#include <string>

#include "planner/core/plan.hpp"
#include "planner/program/program_size.hpp"

namespace shardscope::sim {

// The one rule choosing a ring's model by its size (sim/collectives/ring_actor.hpp: coarse_ring): rings of
// more ranks than kCoarseAboveRanks (planner/program/program_size.hpp) run the coarse model by default.
using shardscope::kCoarseAboveRanks;
// SimGrid runs 1.4-4.3 x 10^5 activities (messages, executions) per wall second on one core: 10^8 is
// minutes. The estimate counts one activity per step-model ring step, coarse ring flow and compute task
// (sim/resources.hpp checks it).
constexpr std::int64_t kMaxSimulatedActivities = 100'000'000;

struct IterationOptions {
  int prefetch_depth = 1;  // gathered buffers in flight beyond the current one (FSDP's default is 1)
  bool overlap = true;     // false: one stream per GPU, every task in order (adds up like the planner)
  int coarse_above = kCoarseAboveRanks;  // rings with more ranks use the coarse model (coarse_ring)
  std::string trace_ranks =
      "8";                   // ranks whose activities and memory are kept for the trace (trace_ranks.hpp)
  double bucket_bytes = 0;   // gradient bucket size (0: each slice's gradients are reduced on their own)
  bool steady_state = true;  // above 64 micro-steps, add repeating micro-steps instead of simulating them
  // When > 0 and simulating every micro-step would exceed max_activities, the steady state must be proven
  // within this many micro-steps (a proof takes a few); the size check counts that many, and a program that
  // has not repeated by then ends with a SimulationError instead of running past the limit. Off (0) by
  // default: with 2^20 micro-steps (tests/hostile f15) the run stalled in the first micro-step, not yet
  // understood, so such iterations are still refused up front.
  int steady_state_proof_steps = 0;
  std::int64_t max_activities = kMaxSimulatedActivities;
  // NCCL's channels between the same two ranks run as one flow shared like that many (sim/flow_weight.hpp);
  // false: one flow per channel, the slower reference tests hold the merged flows to.
  bool merge_nccl_channels = true;
  bool operator==(const IterationOptions&) const = default;
};

// One simulation to run: the scenario is named by its YAML file (the child process reads it itself).
struct SimulationJob {
  std::string scenario_file;
  Plan plan;
  IterationOptions options;
  std::string calibration_file;  // empty: the scenario's own (planner.calibration)
  double timeout_seconds = 0;    // 0: no limit
};

}  // namespace shardscope::sim
