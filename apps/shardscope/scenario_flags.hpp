// The scenario options shared by inspect, plan and simulate: SCENARIO (optional), --set PATH=VALUE,
// --model PRESET|config.json, --cluster PRESET|FILE, --nodes N, --runtime NAME, --tp N|search, --sp,
// --cp N|search.
#pragma once

#include <string>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/io/scenario_overrides.hpp"

namespace CLI {
class App;
}

namespace shardscope::cli {

struct ScenarioFlags {
  std::string scenario;  // a scenario YAML file, a Hugging Face config.json (read as --model), or empty
  std::vector<std::string> sets;
  std::string model, cluster;
  int nodes = 0;
  std::string runtime;             // --runtime NAME: execution.runtime
  std::string tensor;              // --tp N|search: parallelism.tensor
  bool sequence_parallel = false;  // --sp: parallelism.sequence_parallel
  std::string context;             // --cp N|search: parallelism.context
  std::string expert;              // --ep N|search: parallelism.expert
  std::string pipeline;            // --pp: pipeline stages (parallelism.pipeline) or "search"

  // Whether anything beyond a scenario YAML file is given (an override, or a config.json as SCENARIO).
  bool overridden() const;
  // The overrides in the order they apply: SCENARIO when it is a config.json, --model, --cluster, --nodes,
  // --runtime, --tp, --sp, --cp, then each --set as given.
  std::vector<ScenarioOverride> overrides() const;
  // The scenario YAML file, or "" when SCENARIO is absent or a config.json.
  std::string scenario_file() const;
  // The resolved scenario (load_scenario_with_overrides).
  Scenario load() const;
  // The cluster's GPU as the reports name it: its name, and "(memory set to 40.00 GiB)" after a --set of
  // cluster.gpu.memory, which the name may contradict (A100-SXM4-80GB).
  std::string gpu_label(const Scenario& resolved) const;
};

// Adds the positional SCENARIO (not required: --model and --cluster can stand in for it) and the override
// options to `command`.
void add_scenario_flags(CLI::App& command, ScenarioFlags& flags);

}  // namespace shardscope::cli
