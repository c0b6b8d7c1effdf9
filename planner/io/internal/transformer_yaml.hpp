// The `transformer:` YAML mapping -> TransformerSpec (yaml-cpp stays inside planner/io).
#pragma once

#include "planner/core/transformer.hpp"
#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {

TransformerSpec parse_transformer_spec(const YamlMap& map);

}  // namespace shardscope
