// CLI11 option checks and help texts from the name tables and the strategy registry, with "did you mean"
// suggestions on a typo.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "planner/core/names.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope::cli {

// Accepts exactly the spellings of E; an unknown value is an error naming `what` and suggesting the
// nearest spelling (or listing them all).
template <NamedEnum E>
CLI::Validator one_of(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        if (parse_name<E>(value)) return "";
        return "unknown " + what + " '" + value + "'" + suggest_or_list(value, names<E>(), "expected one of");
      },
      "{" + join(names<E>(), ",") + "}");
}

// "name: description" for each spelling of E, one per line (option help).
template <NamedEnum E>
std::string described_names() {
  std::string out;
  for (const NameEntry<E>& e : name_table<E>()) out += std::string("\n  ") + e.name + ": " + e.description;
  return out;
}

// A strategy from the registry (name or alias, any case).
inline CLI::Validator strategy_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        return find_strategy(value) != nullptr ? "" : unknown_strategy_message(value);
      },
      "STRATEGY");
}

// "Strategies: shardscope, ddp, ..." for option help.
inline std::string strategy_help() {
  return "one of " + join(strategy_names()) +
         ", or a framework's name for one (full_shard, hsdp, hybrid_shard, shard_grad_op, no_shard, "
         "stage-0 to stage-3, ...)";
}

}  // namespace shardscope::cli
