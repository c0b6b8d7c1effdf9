// Simulated training iteration of a plan: per GPU a compute and a communication stream on the SimGrid
// platform, collectives as real flows, memory tracked by category over simulated time.
#pragma once

#include "exchange/iteration_result.hpp"
#include "exchange/simulation_job.hpp"
#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/program/iteration_program.hpp"
#include "sim/collectives/ring_actor.hpp"
#include "sim/resources.hpp"
#include "sim/simulation_observer.hpp"

namespace shardscope::sim {

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
