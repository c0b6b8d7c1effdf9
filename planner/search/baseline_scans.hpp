// The baselines' batch scans on a task pool beside the planning thread, reported in strategy order.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/scan_events.hpp"
#include "planner/search/search_space.hpp"
#include "planner/search/task_pool.hpp"

namespace shardscope {

// Scans the baseline spaces (spaces[1..]) on helper threads while the planning thread scans the product's
// space; each strategy is independent and deterministic, so the results do not depend on the threads. With
// a thread limit of one the planning thread scans each baseline itself when it takes it. The arguments must
// outlive the object.
class BaselineScans {
 public:
  BaselineScans(const ValidScenario& scenario, const Calibration& calibration,
                const std::vector<SearchSpace>& spaces, const std::vector<std::int64_t>& micro_batches,
                const Plan& configured, std::size_t thread_limit);
  BaselineScans(const BaselineScans&) = delete;
  BaselineScans& operator=(const BaselineScans&) = delete;
  // Stops the scans still running at their next batch boundary and waits for them.
  ~BaselineScans();

  // Waits for strategy `index`, polling the meter's cancellation while it waits; reports its batches and
  // returns its result (or rethrows what its scan threw).
  StrategyResult take(std::size_t index, const std::string& name, ProgressMeter& meter);

  // The meter's cancellation check; on cancel the scans stop at their next batch boundary.
  void stop_if_cancelled(const ProgressMeter& meter);

 private:
  struct Scan {
    std::unique_ptr<RecordedScan> events;
    StrategyResult result;
  };
  StrategyResult scan(std::size_t index, ScanEvents& events) const;

  ValidScenario scenario_;  // shared, read-only
  const Calibration& calibration_;
  const std::vector<SearchSpace>& spaces_;
  const std::vector<std::int64_t>& micro_batches_;
  const Plan& configured_;
  std::atomic<bool> stop_{false};
  TaskPool pool_;
  std::vector<Task<Scan>> scans_;  // by space index (none for the product's space at 0)
};

}  // namespace shardscope
