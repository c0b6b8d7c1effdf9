// How an input names a strategy without depending on the search layer's registry: the registry hands its
// lookup to the parsers that need one (sweep grids), so planner/io stays on planner/core alone.
#pragma once

#include <functional>
#include <string>

namespace shardscope {

struct StrategyLookup {
  // The registry's spelling of `name` (any case, or an alias), or "" when no strategy has that name.
  std::function<std::string(const std::string& name)> canonical;
  // The message for an unknown name ("unknown strategy 'x'; did you mean 'y'?").
  std::function<std::string(const std::string& name)> unknown_message;
};

}  // namespace shardscope
