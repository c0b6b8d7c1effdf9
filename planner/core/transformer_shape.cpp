// A transformer spec's shape: each layer's width and the name a model given without one gets.
#include <algorithm>
#include <string>

#include "planner/core/transformer.hpp"

namespace shardscope {

double layer_hidden_size(const TransformerSpec& spec, int layer) {
  return static_cast<double>(spec.layer_hidden.empty() ? spec.hidden
                                                       : spec.layer_hidden[static_cast<std::size_t>(layer)]);
}

std::string descriptive_name(const TransformerSpec& spec) {
  std::string name = "transformer-" + std::to_string(spec.layers) + "x";
  if (spec.layer_hidden.empty()) {
    name += std::to_string(spec.hidden);
  } else {
    const auto [low, high] = std::minmax_element(spec.layer_hidden.begin(), spec.layer_hidden.end());
    name += std::to_string(*low);
    if (*high != *low) name += "-" + std::to_string(*high);
  }
  if (spec.experts > 0) name += "-moe" + std::to_string(spec.experts);
  return name;
}

}  // namespace shardscope
