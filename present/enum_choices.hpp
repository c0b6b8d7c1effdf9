// An enum's spellings and descriptions, from its name table, in table order: the entries of a list or combo
// box.
#pragma once

#include <string>
#include <vector>

#include "planner/core/names.hpp"

namespace shardscope::present {

struct EnumChoice {
  std::string name;         // as the scenario file spells it: "mixed-bf16"
  std::string description;  // one line: "bf16 weights and gradients, fp32 master copy"
};

template <NamedEnum E>
std::vector<EnumChoice> enum_choices() {
  std::vector<EnumChoice> out;
  for (const NameEntry<E>& e : name_table<E>()) out.push_back({e.name, e.description});
  return out;
}

}  // namespace shardscope::present
