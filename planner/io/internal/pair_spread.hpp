// Reads the `pairs` and `pair_sd` of a scored-rows entry (runtime profiles' published_errors, calibrations'
// prediction_error): both or neither.
#pragma once

#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {

inline void read_pair_spread(const YamlMap& m, int& pairs, double& pair_sd) {
  if (!m.has("pairs") && !m.has("pair_sd")) return;
  if (!m.has("pairs")) m.fail("pair_sd", "pair_sd needs pairs (how many pairs of rows it was measured on)");
  if (!m.has("pair_sd")) m.fail("pairs", "pairs needs pair_sd (the pairs' spread of ln(predicted/measured))");
  pairs = static_cast<int>(m.integer("pairs", 1, 1000000000));
  pair_sd = m.number("pair_sd", 0, 10);
}

}  // namespace shardscope
