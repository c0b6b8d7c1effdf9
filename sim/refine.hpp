// Refinement: simulates the planner's best candidate plans, each through a SimulationRunner (in practice a
// child process per plan), and picks the fastest under simulation.
#pragma once

#include <string>
#include <vector>

#include "planner/core/plan.hpp"
#include "sim/runner.hpp"

namespace shardscope::sim {

// One candidate: the plan with the planner's prediction, and what its simulation gave.
struct RefinedCandidate {
  Plan plan;  // plan.predicted holds the planner's figures
  bool simulated = false;
  double simulated_iteration_seconds = 0;
  double simulated_samples_per_second = 0;
  double simulated_peak_memory_bytes = 0;  // the largest over the ranks
  std::string failure;                     // when not simulated: why (a timeout, a crash)
};

struct RefineOutcome {
  std::vector<RefinedCandidate> candidates;  // in the order given
  int chosen = -1;  // the simulated candidate with the highest samples/s (the first of equals); -1: none
};

// Simulates each candidate with `job`'s scenario, options and timeout. A candidate whose simulation fails
// (SimulationError: a timeout, a crash, a resource limit) is kept with the reason and the others go on; bad
// input (InputError: the scenario file changed, a plan it refuses) stops the refinement.
RefineOutcome refine_plans(const std::vector<Plan>& candidates, SimulationRunner& runner,
                           const SimulationJob& job);

}  // namespace shardscope::sim
