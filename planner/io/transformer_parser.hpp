// The shipped model presets (scenarios/models/*.yaml) by name; the `transformer:` mapping itself is read by
// internal/transformer_yaml.hpp.
#pragma once

#include <string>
#include <vector>

#include "planner/core/transformer.hpp"

namespace shardscope {

// The preset's spec (model_presets() lists them); throws InputError(file, line, field) for an unknown name,
// suggesting the nearest or listing the known ones.
TransformerSpec model_preset(const std::string& name, const std::string& file, int line,
                             const std::string& field);

}  // namespace shardscope
