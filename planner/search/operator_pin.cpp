// Which operator choices a pin admits, and its one-line description.
#include "planner/search/operator_pin.hpp"

namespace shardscope {

bool OperatorPin::admits(const OperatorChoice& c) const {
  if (replicated && c.sharded_slices != 0) return false;
  if (fully_sharded && (c.sharded_slices < 1 || c.sharded_slices != c.slices)) return false;
  if (scopes && (c.sharded_slices < 1 || c.scopes.name() != scopes->name())) return false;
  if (slices && c.slices != *slices) return false;
  if (sharded_slices && c.sharded_slices != *sharded_slices) return false;
  if (checkpoint && c.checkpoint != *checkpoint) return false;
  return true;
}

std::string OperatorPin::describe(const std::string& operator_name) const {
  std::string out = operator_name + ":";
  auto add = [&out, first = true](const std::string& part) mutable {
    out += (first ? " " : ", ") + part;
    first = false;
  };
  if (replicated) add("DP (nothing sharded)");
  if (fully_sharded && scopes && scopes->name() == "GGG") {
    add("ZDP (GGG, all slices)");
  } else {
    if (scopes) add("scopes " + scopes->name());
    if (fully_sharded) add("all slices sharded");
  }
  if (slices) add(std::to_string(*slices) + (*slices == 1 ? " slice" : " slices"));
  if (sharded_slices) add(std::to_string(*sharded_slices) + " sharded");
  if (checkpoint) add(*checkpoint ? "checkpointed" : "not checkpointed");
  return out;
}

OperatorPin dp_pin(std::size_t operator_index) {
  OperatorPin pin;
  pin.operator_index = operator_index;
  pin.replicated = true;
  return pin;
}

OperatorPin zdp_pin(std::size_t operator_index) {
  OperatorPin pin;
  pin.operator_index = operator_index;
  pin.fully_sharded = true;
  pin.scopes = Scopes{ShardScope::G, ShardScope::G, ShardScope::G};
  return pin;
}

bool plan_honours_pins(const std::vector<OperatorPin>& pins, const std::vector<OperatorChoice>& operators) {
  for (const OperatorPin& pin : pins) {
    if (pin.operator_index >= operators.size() || !pin.admits(operators[pin.operator_index])) return false;
  }
  return true;
}

}  // namespace shardscope
