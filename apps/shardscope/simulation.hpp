// Simulation: what the simulator adds to the commands, as an interface, so that shardscope::cli never links
// SimGrid. shardscope-sim's main() passes the SimGrid one (simgrid_simulation.hpp); shardscope's passes none,
// and runs shardscope-sim for every command line that simulates (simulator_exec.hpp).
#pragma once

#include <cstddef>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/shardscope/commands.hpp"
#include "planner/core/calibration.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/search/planner.hpp"
#include "validate/fit/compare_predict.hpp"
#include "validate/fit/reproduce.hpp"

namespace shardscope::cli {

// `plan --refine`'s outcome: its JSON (the report's "refine") and its text (after the plan's).
struct RefineReport {
  nlohmann::ordered_json json;
  std::string text;
};

class Simulation {
 public:
  virtual ~Simulation() = default;

  // Adds `collective` and `simulate` to `app`, with their actions.
  virtual void add_commands(CLI::App& app, std::vector<Registered>& commands) const = 0;

  // `plan --refine`: simulates report.candidates, each in a child process reading `scenario_file`, and makes
  // the fastest under simulation the report's plan.
  virtual RefineReport refine(PlanReport& report, const ValidScenario& scenario,
                              const Calibration& calibration, const std::string& scenario_file,
                              double timeout_seconds) const = 0;

  // `compare`: each measured plan simulated in a child process reading `scenario_file` (and
  // `calibration_file` when not empty), under `timeout_seconds`.
  virtual fit::Simulate compare_simulator(const std::string& scenario_file,
                                          const std::string& calibration_file, const Scenario& scenario,
                                          double timeout_seconds) const = 0;

  // `sweep-point --simulate`: `plan` simulated in a forked process; its simulated_* numbers, or its
  // simulation_error, join `metrics`.
  virtual void simulate_point(const ValidScenario& scenario, const Calibration& calibration, const Plan& plan,
                              std::size_t point_index, nlohmann::ordered_json& metrics) const = 0;

  // `reproduce --simulate`: each published row's plan simulated in a forked process (its iteration seconds);
  // rows on more than `max_gpus` GPUs, and simulations that fail, give nothing.
  virtual fit::RowSimulate row_simulator(int max_gpus) const = 0;

  // Whether `error` is the simulator's own (SimulationError), whose text main() prints as it is.
  virtual bool explains(const std::exception& error) const = 0;
};

}  // namespace shardscope::cli
