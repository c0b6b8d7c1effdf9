// Builds a Comparison: for every measured iteration, the plan its strategy gives at the measured micro-batch
// (checked against the measured plan digest), priced by the planner (iteration, peak memory, each task of
// the iteration program) and, through a callback, by the simulator.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
#include "validate/fit/comparison.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::fit {

struct SimulatedIteration {
  double iteration_seconds = 0;
  double peak_memory_bytes = 0;  // the largest over the GPUs
};
// Simulates one plan under the prediction calibration; nothing when no simulator is available.
using Simulate = std::function<std::optional<SimulatedIteration>(const Plan& plan)>;

struct CompareInputs {
  std::string scenario_file;        // as given on the command line
  Scenario scenario;                // loaded from it
  Calibration plan_calibration;     // the scenario's own: what the plans were made with
  Calibration predict_calibration;  // what they are priced with (--calibration, else the scenario's)
  std::string calibration_label;    // "c.yaml" or "the scenario's"
  Measurements measured;
};

// The plan a measured iteration executed: its strategy ("shardscope" is the product's recommendation) at the
// measured micro-batch. Throws InputError naming the measurements file and iterations[i].field when the
// iteration names another scenario, an unknown strategy, a micro-batch the scenario fixes otherwise, other
// micro-steps, or a plan digest this plan does not have.
Plan measured_plan(const CompareInputs& inputs, const MeasuredIteration& iteration);

Comparison build_comparison(const CompareInputs& inputs, const Simulate& simulate);

}  // namespace shardscope::fit
