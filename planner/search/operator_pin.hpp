// OperatorPin: a user's constraint on one operator's choice (DP, ZDP, a scope, a slice count, checkpointing).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/plan.hpp"

namespace shardscope {

// Restricts the choices of the operator at `operator_index` (model order); every field left empty is free.
// A plan honours the pin when that operator's choice is admitted.
struct OperatorPin {
  std::size_t operator_index = 0;
  bool replicated = false;            // plain DP: nothing sharded (k = 0)
  bool fully_sharded = false;         // every slice sharded (k = g >= 1); with scopes GGG this is ZDP
  std::optional<Scopes> scopes;       // the sharded slices' scopes (implies k >= 1)
  std::optional<int> slices;          // g
  std::optional<int> sharded_slices;  // k
  std::optional<bool> checkpoint;

  bool admits(const OperatorChoice& choice) const;
  // "layer3.mlp: ZDP (GGG, all slices)", "op 7: scopes IIG, 4 slices, 2 sharded, checkpointed".
  std::string describe(const std::string& operator_name) const;
};

OperatorPin dp_pin(std::size_t operator_index);
OperatorPin zdp_pin(std::size_t operator_index);

// Whether every pin admits the plan's choice for its operator (pins beyond the plan's operators fail).
bool plan_honours_pins(const std::vector<OperatorPin>& pins, const std::vector<OperatorChoice>& operators);

}  // namespace shardscope
