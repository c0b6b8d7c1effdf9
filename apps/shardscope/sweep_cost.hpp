// What one sweep point costs, estimated before it runs: the choices its planner prices and, simulated, the
// activities its simulations start (planner/program/program_size.hpp); the order points are handed out in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/core/scenario.hpp"

namespace shardscope::cli {

struct PointCost {
  bool known = false;  // false: the scenario could not be sized (its run reports why)
  // Per strategy the point plans, each operator's choices in its space times the micro-batches its scan may
  // price (1 under a fixed training.micro_batch): what plan_scenario's search prices at most.
  std::int64_t planner_choices = 0;
  // With --simulate, per strategy the activities of its plan's simulated iteration, priced on a stand-in plan
  // (the strategy's own choice for whole-model strategies, FSDP's where the space chooses per operator) at
  // micro-batch 1 (or the fixed one): the most micro-steps a global batch can ask for, and beyond 64
  // micro-steps the 3 a steady-state proof simulates. 0 without --simulate.
  std::int64_t simulator_activities = 0;
};

// `strategies`: the point's (empty: every strategy plan reports). Never throws: a scenario that does not
// validate or build gives an unknown cost.
PointCost estimate_point_cost(const Scenario& scenario, const std::vector<std::string>& strategies,
                              bool simulate);

// The key points are handed out by, largest first: simulator activities when simulating (they dominate), else
// planner choices; unknown costs last.
double cost_order_key(const PointCost& cost, bool simulate);

}  // namespace shardscope::cli
