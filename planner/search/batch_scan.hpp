// The batch scan of one strategy: its batch sizes in order, solved ahead on helper threads, decided in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/scan_events.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {

// The micro-batches a scan tries: the scenario's fixed one, or each up to max_micro_batch that reaches the
// global batch.
std::vector<std::int64_t> batch_candidates(const Scenario& scenario);

// How a scan runs and what it keeps besides its result.
struct ScanOptions {
  // Batch sizes worked on at once: this thread's and up to `window` - 1 ahead on helper threads.
  std::size_t window = 1;
  // With `fastest`: the kept_plans fastest solved batch sizes' plans go there (for refinement), fastest
  // first, in the scan's order on the calling thread whatever `window` is.
  std::size_t kept_plans = 0;
  std::vector<Plan>* fastest = nullptr;
};

// Scans `micro_batches` in order for one space, reporting each batch row to `events`; the result's plan
// records `configured`'s configuration. The result and the events are the same for every window.
StrategyResult scan_strategy(const ValidScenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, const std::vector<std::int64_t>& micro_batches,
                             const Plan& configured, ScanEvents& events, const ScanOptions& options = {});

}  // namespace shardscope
