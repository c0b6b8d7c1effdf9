// `transformer:` YAML mapping -> TransformerSpec, and the shipped model presets (scenarios/models/*.yaml).
#pragma once

#include <string>
#include <vector>

#include "planner/core/transformer.hpp"
#include "planner/io/yaml_reader.hpp"

namespace shardscope {

TransformerSpec parse_transformer_spec(const YamlMap& map);

// The preset's spec (model_presets() lists them); throws InputError(file, line, field) for an unknown name,
// suggesting the nearest or listing the known ones.
TransformerSpec model_preset(const std::string& name, const std::string& file, int line,
                             const std::string& field);

}  // namespace shardscope
