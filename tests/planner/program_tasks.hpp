// Hand-built iteration programs for the schedule and exposure tests: a compute task, and the collective
// prices of one DGX-A100 node (groups of 8).
#pragma once

#include "planner/core/calibration.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"

namespace shardscope::test {

inline Task compute(double seconds, int wait_for = -1) {
  Task t;
  t.stream = Task::Stream::compute;
  t.compute_seconds = seconds;
  t.wait_for_other = wait_for;
  return t;
}

inline CollectiveCost dgx_collectives() {
  const Scenario s =
      parse_scenario_string("model: {preset: nd-48x1536}\ncluster: {preset: dgx-a100}\n", "dgx.yaml");
  return CollectiveCost(s.cluster, 8, Calibration{});
}

}  // namespace shardscope::test
