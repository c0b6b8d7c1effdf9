// The default scenario planned once for the present tests, and the stdout a golden transcript records.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::present::testing {

inline std::string source_path(const std::string& relative) {
  return std::string(SHARDSCOPE_SOURCE_DIR) + "/" + relative;
}

struct Planned {
  Scenario scenario;
  PlanReport report;
};

// `relative` (a scenario under the source tree) planned as `shardscope plan` plans it.
inline Planned plan_file(const std::string& relative, bool with_baselines = true) {
  Planned out;
  out.scenario = load_scenario_file(source_path(relative));
  PlanRequest request;
  request.with_baselines = with_baselines;
  out.report = plan_scenario(ValidScenario(out.scenario), scenario_calibration(out.scenario), request);
  return out;
}

inline const Planned& default_plan() {
  static const Planned planned = plan_file("scenarios/default.yaml");
  return planned;
}

// The stdout lines ("> ...") that `tesh` records for the first command of a transcript, joined by "\n".
inline std::string transcript_stdout(const std::string& relative) {
  std::ifstream in(source_path(relative));
  std::string line, out;
  bool command = false;
  while (std::getline(in, line)) {
    if (line.rfind("$ ", 0) == 0) {
      if (command) break;
      command = true;
    } else if (command && line.rfind(">", 0) == 0) {
      out += (line.size() > 2 ? line.substr(2) : "") + "\n";
    }
  }
  return out;
}

}  // namespace shardscope::present::testing
