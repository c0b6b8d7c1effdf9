// Simulated training iteration of a plan: per GPU a compute and a communication stream on the SimGrid
// platform, collectives as real flows, memory tracked by category over simulated time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/program/iteration_program.hpp"
#include "sim/collectives/ring_actor.hpp"
#include "sim/resources.hpp"
#include "sim/simulation_observer.hpp"

namespace shardscope::sim {

struct IterationOptions {
  int prefetch_depth = 1;  // gathered buffers in flight beyond the current one (FSDP's default is 1)
  bool overlap = true;     // false: one stream per GPU, every task in order (adds up like the planner)
  int coarse_above = kCoarseAboveRanks;  // rings with more ranks use the coarse model (coarse_ring)
  int trace_ranks = 8;                   // ranks whose activities and memory are kept for the trace
  double bucket_bytes = 0;   // gradient bucket size (0: each slice's gradients are reduced on their own)
  bool steady_state = true;  // above 64 micro-steps, add repeating micro-steps instead of simulating them
  // When > 0 and simulating every micro-step would exceed max_activities, the steady state must be proven
  // within this many micro-steps (a proof takes a few); the size check counts that many, and a program that
  // has not repeated by then ends with a SimulationError instead of running past the limit. Off (0) by
  // default: with 2^20 micro-steps (tests/hostile f15) the run stalled in the first micro-step, not yet
  // understood, so such iterations are still refused up front.
  int steady_state_proof_steps = 0;
  std::int64_t max_activities = kMaxSimulatedActivities;
  bool operator==(const IterationOptions&) const = default;
};

struct GpuResult {
  int rank = 0;
  double peak_memory_bytes = 0;
  double compute_seconds = 0;
  double exposed_comm_seconds = 0;                    // iteration time not covered by compute
  bool operator==(const GpuResult&) const = default;  // exact, field by field
};

struct TraceEvent {
  int rank = 0;
  int stream = 0;  // 0 compute, 1 communication
  std::string name;
  double start_seconds = 0;
  double end_seconds = 0;
  bool operator==(const TraceEvent&) const = default;  // exact, field by field
};

struct MemorySample {
  int rank = 0;
  double time_seconds = 0;
  MemoryBytes bytes{};
  bool operator==(const MemorySample&) const = default;  // exact, field by field
};

struct LinkUsage {
  std::string link;
  std::string direction;  // "up" or "down" (split-duplex halves)
  double bytes_per_second = 0;
  double bytes = 0;                                   // carried during the iteration
  double utilisation = 0;                             // bytes / (bandwidth x iteration time)
  bool operator==(const LinkUsage&) const = default;  // exact, field by field
};

struct IterationResult {
  double iteration_seconds = 0;
  double samples_per_second = 0;
  double tokens_per_second = 0;
  std::vector<GpuResult> gpus;
  std::vector<TraceEvent> trace;
  std::vector<MemorySample> memory;
  std::vector<LinkUsage> links;  // every link direction that carried traffic, by name
  std::int64_t activities = 0;   // SimGrid communications and executions started
  // Micro-steps not simulated: after two micro-steps that repeated their predecessors exactly (every task
  // of every GPU shifted by one period, to rounding), each adds that period (absent from the trace).
  int steady_state_micro_steps = 0;
  bool operator==(const IterationResult&) const = default;  // exact, field by field
};

// Refuses (SimulationError), before any planning, a scenario whose iteration cannot be simulated within
// the limits of resources.hpp at any plan: every micro-step computes each operator forward and backward
// on every GPU, at the fewest micro-steps its batch settings allow (with `options.steady_state`, at most the
// micro-steps a steady-state proof may take).
void check_iteration_size(const Scenario& scenario, const IterationOptions& options);

// Runs one simulation. SimGrid allows one engine per process: a second call in the same process throws
// SimulationError (run further simulations through a ChildProcessRunner, runner.hpp). Throws InputError for a
// plan that does not match the model and SimulationError when the simulation cannot progress. `observer`
// (optional) sees progress and may cancel (SimulationCancelled).
IterationResult simulate_iteration(const ValidScenario& scenario, const Calibration& calibration,
                                   const Plan& plan, const IterationOptions& options,
                                   SimulationObserver* observer = nullptr);

}  // namespace shardscope::sim
