// Baseline scans as pool tasks recording their events; the planning thread waits, polls and replays.
#include "planner/search/baseline_scans.hpp"

#include <algorithm>
#include <chrono>

#include "planner/search/batch_scan.hpp"

namespace shardscope {
namespace {

// Helper threads for the baselines: one per baseline up to the limit, none when the planning thread is alone.
std::size_t baseline_helpers(std::size_t spaces, std::size_t thread_limit) {
  if (spaces <= 1 || thread_limit <= 1) return 0;
  return std::min(spaces - 1, thread_limit);
}

}  // namespace

BaselineScans::BaselineScans(const ValidScenario& scenario, const Calibration& calibration,
                             const std::vector<SearchSpace>& spaces,
                             const std::vector<std::int64_t>& micro_batches, const Plan& configured,
                             std::size_t thread_limit)
    : scenario_(scenario),
      calibration_(calibration),
      spaces_(spaces),
      micro_batches_(micro_batches),
      configured_(configured),
      pool_(baseline_helpers(spaces.size(), thread_limit)) {
  if (pool_.helper_threads() == 0) return;
  scans_.resize(spaces.size());
  for (std::size_t index = 1; index < spaces.size(); ++index) {
    scans_[index] = pool_.submit([this, index] {
      Scan out;
      out.events = std::make_unique<RecordedScan>(stop_);
      out.result = scan(index, *out.events);
      return out;
    });
  }
}

BaselineScans::~BaselineScans() { stop_.store(true); }

StrategyResult BaselineScans::scan(std::size_t index, ScanEvents& events) const {
  return scan_strategy(scenario_, calibration_, spaces_[index], micro_batches_, configured_, events);
}

StrategyResult BaselineScans::take(std::size_t index, const std::string& name, ProgressMeter& meter) {
  if (pool_.helper_threads() == 0) return scan(index, meter);
  Task<Scan>& task = scans_[index];
  while (!task.wait_for(std::chrono::milliseconds(20))) stop_if_cancelled(meter);
  Scan done = task.get();
  done.events->replay(name, meter);
  return std::move(done.result);
}

void BaselineScans::stop_if_cancelled(const ProgressMeter& meter) {
  try {
    meter.check_cancelled();
  } catch (const PlanCancelled&) {
    stop_.store(true);
    throw;
  }
}

}  // namespace shardscope
