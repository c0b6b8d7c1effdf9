// The scenario's YAML tree inside planner/io (yaml-cpp is private to this layer): parsing a tree, and
// overriding its fields by path before that (scenario_overrides.hpp is the public side).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/io/scenario_overrides.hpp"

namespace shardscope {

// Parses a scenario's YAML tree (a mapping, as parse_yaml_mapping returns it): what parse_scenario_string
// does after reading the text.
Scenario parse_scenario_node(const YAML::Node& root, const std::string& file_name,
                             const std::string& base_dir = ".");

// One step of a field path: a key, and the list index after it ("operators[3]"), -1 when none.
struct FieldPathStep {
  std::string key;
  long index = -1;
};

// `o.path` as steps ("model.operators[3].name": model, operators[3], name); a malformed path is an error
// naming the override (as apply_override's).
std::vector<FieldPathStep> parse_field_path(const ScenarioOverride& o);

// Sets `o.path` to `o.value` in `root` (a mapping, changed in place; the scenario's own relative paths
// resolve against `scenario_base_dir`). A path through a field that holds a single value, an index past a
// list's end, a malformed path or value is an InputError naming the override.
void apply_override(YAML::Node& root, const ScenarioOverride& o, const std::string& scenario_base_dir);

// `base` with the overrides applied in order (in place: `base` changes), parsed as a scenario; an error in a
// field an override set names the override (load_scenario_with_overrides).
Scenario parse_scenario_with_overrides(const YAML::Node& base, const std::string& file_name,
                                       const std::string& base_dir,
                                       const std::vector<ScenarioOverride>& overrides);

}  // namespace shardscope
