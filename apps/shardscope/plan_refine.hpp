// `plan --refine K`: the report's candidate plans simulated in child processes, the fastest under simulation
// recommended, both predictions shown (built with the simulator only).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "planner/core/calibration.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/search/planner.hpp"
#include "sim/refine.hpp"

namespace shardscope::cli {

// Simulates report.candidates (the scenario read from `scenario_file` by each child, with `scenario`'s
// execution options), each under `timeout_seconds`, and makes the fastest under simulation the report's
// plan. Throws SimulationError when no candidate could be simulated.
sim::RefineOutcome refine_report(PlanReport& report, const ValidScenario& scenario,
                                 const Calibration& calibration, const std::string& scenario_file,
                                 double timeout_seconds);

void print_refine(const sim::RefineOutcome& refined, std::ostream& os);
nlohmann::ordered_json refine_to_json(const sim::RefineOutcome& refined);

}  // namespace shardscope::cli
