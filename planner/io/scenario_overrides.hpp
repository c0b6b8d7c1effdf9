// Scenario overrides by field path (`--set training.memory_limit=16GB`, `--model`, `--cluster`, `--nodes`,
// sweep axes): applied to the scenario's YAML tree before it is parsed, errors blamed on the override.
#pragma once

#include <string>
#include <vector>

#include "planner/core/scenario.hpp"

namespace shardscope {

// One value for one field path. `path` is dotted ("training.memory_limit", "cluster.nodes",
// "model.operators[3].name"); `value` is YAML text (a scalar, or a flow list such as "[1, 2, 4]").
// Two paths read specially when their value is a scalar: "model" (a model preset, or a Hugging Face
// config.json when the value ends in .json or names a path) replaces the model's source and keeps its
// sequence_length and flash_attention; "cluster" (a cluster preset) replaces the whole cluster section.
// File paths among the values (model, model.hf_config, cluster.file, planner.calibration) are read
// relative to `base_dir` (the working directory for a command line, the grid file's folder for a sweep).
struct ScenarioOverride {
  std::string source;  // what an error names: "--set", "--model", "grid.yaml:12"
  std::string path;
  std::string value;
  std::string base_dir = ".";
};

// True when applying the override at path `later` after the one at `earlier` replaces what `earlier` wrote:
// the same field, or a section holding it ("cluster" holds "cluster.nodes"); a scalar `model` and each of the
// model's sources (model.preset, model.hf_config, ...) count as one field, the model's source.
bool override_replaces(const std::string& later, const std::string& earlier);

// Throws InputError naming the later override when one replaces an earlier one (--nodes 4 then
// --set cluster=X would drop the node count, a field given twice one of its values).
void check_overrides_keep_each_other(const std::vector<ScenarioOverride>& overrides);

// "PATH=VALUE" from `--set`; an empty path or value, or no '=', is an InputError naming `source`.
ScenarioOverride parse_set_argument(const std::string& text, const std::string& source = "--set");

// The scenario `scenario_file` (none when empty: then the overrides must give a model and a cluster) with
// the overrides applied in order, parsed and checked as a scenario file is. An error in a field an override
// set (an unknown key, a wrong type, a value out of range) names the override, not the file.
Scenario load_scenario_with_overrides(const std::string& scenario_file,
                                      const std::vector<ScenarioOverride>& overrides);

}  // namespace shardscope
