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
// sequence_length and flash_attention; "cluster" (a cluster preset, or a cluster file: names_cluster_file)
// replaces the whole cluster section.
// File paths among the values (model, model.hf_config, cluster.file, planner.calibration) are read
// relative to `base_dir` (the working directory for a command line, the grid file's folder for a sweep).
struct ScenarioOverride {
  // What an error names: an option as given ("--set training.memory_limit=16GB", "--model llama-7b") when
  // `option`, else a place in a file ("grid.yaml:12").
  std::string source;
  std::string path;
  std::string value;
  std::string base_dir = ".";
  bool option = false;  // errors are UsageErrors ("OPTION: message"), else InputErrors at `source`
};

// A command-line override: `option` is the option as given, e.g. "--model llama-7b".
ScenarioOverride option_override(std::string option, std::string path, std::string value);

// True when applying the override at path `later` after the one at `earlier` replaces what `earlier` wrote:
// the same field, or a section holding it ("cluster" holds "cluster.nodes"); a scalar `model` and each of the
// model's sources (model.preset, model.hf_config, ...) count as one field, the model's source.
bool override_replaces(const std::string& later, const std::string& earlier);

// Throws InputError naming the later override when one replaces an earlier one (--nodes 4 then
// --set cluster=X would drop the node count, a field given twice one of its values).
void check_overrides_keep_each_other(const std::vector<ScenarioOverride>& overrides);

// "PATH=VALUE" from `--set`: an option override named "--set PATH=VALUE"; an empty path or value, or no '=',
// is a UsageError naming the option and its text.
ScenarioOverride parse_set_argument(const std::string& text, const std::string& option = "--set");

// The scenario `scenario_file` (none when empty: then the overrides must give a model and a cluster) with
// the overrides applied in order, parsed and checked as a scenario file is. An error in a field an override
// set (an unknown key, a wrong type, a value out of range) names the override, not the file; so does an
// error elsewhere that the overrides caused (--set cluster.gpu.memory=1GiB under the file's runtime_reserve):
// the first override after which the scenario no longer parses is named, with the field and its place.
Scenario load_scenario_with_overrides(const std::string& scenario_file,
                                      const std::vector<ScenarioOverride>& overrides);

}  // namespace shardscope
