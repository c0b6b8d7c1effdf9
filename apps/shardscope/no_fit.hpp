// What `plan` and `simulate` say when nothing fits: the micro-batches tried and the smallest peak vs the
// limit.
#pragma once

#include <cstdint>
#include <string>

#include "planner/core/scenario.hpp"
#include "planner/core/units.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::cli {

// "micro-batch 4" or "micro-batches 1, 2 and 3": the sizes the strategy's scan tried, in order.
inline std::string tried_micro_batches(const StrategyResult& result) {
  const auto& rows = result.batches;
  if (rows.empty()) return "no micro-batch (none is allowed)";
  std::string out = rows.size() == 1 ? "micro-batch " : "micro-batches ";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += i + 1 == rows.size() ? " and " : ", ";
    out += std::to_string(rows[i].micro_batch);
  }
  return out;
}

// For the text report: "at micro-batch 4 (the only one tried) the smallest plan needs 11.25 GiB per GPU,
// 3.80 GiB over the memory limit of 7.45 GiB".
inline std::string no_fit_text(const Scenario& scenario, const StrategyResult& result) {
  const double limit = static_cast<double>(scenario.training.memory_limit_bytes);
  std::string out = "tried " + tried_micro_batches(result) + "; the smallest plan needs " +
                    units::format_bytes(result.minimum_memory_bytes) + " per GPU";
  if (result.minimum_memory_bytes > limit) {
    out += ", " + units::format_bytes(result.minimum_memory_bytes - limit) + " over";
  }
  return out + " the memory limit of " + units::format_bytes(limit);
}

// For the error line: exact byte counts.
inline std::string no_fit_bytes(const Scenario& scenario, const StrategyResult& result) {
  return "tried " + tried_micro_batches(result) + "; the smallest plan needs " +
         std::to_string(static_cast<std::int64_t>(result.minimum_memory_bytes)) +
         " bytes per GPU, the memory limit is " + std::to_string(scenario.training.memory_limit_bytes) +
         " bytes";
}

}  // namespace shardscope::cli
