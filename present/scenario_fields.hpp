// The scenario fields an editor offers, each with its `--set` path, a label and what it is: the list the
// GUI's field table is built from.
#pragma once

#include <string>
#include <vector>

namespace shardscope::present {

struct ScenarioField {
  std::string path;   // as `--set` spells it: "training.memory_limit"
  std::string label;  // "Memory limit"
  std::string what;   // one line: "bytes per GPU the plan may use (8GB, 7.5GiB)"; enums list their names
};

// In the scenario file's order: name, model, cluster, training, planner, execution.
const std::vector<ScenarioField>& scenario_fields();

}  // namespace shardscope::present
