// Progress and cancellation at a scan's batch boundaries, live or recorded for an ordered replay.
#include "planner/search/scan_events.hpp"

#include <algorithm>

namespace shardscope {

void ProgressMeter::check_cancelled() const {
  if (observer_.cancelled()) throw PlanCancelled();
}

void ProgressMeter::batch_solved(std::string_view strategy, const BatchRow& row) {
  observer_.batch_solved(strategy, row);
}

void ProgressMeter::advance(std::size_t units) {
  if (units == 0) return;
  done_ = std::min(total_, done_ + units);
  observer_.progress(done_ == total_ ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_));
}

void ProgressMeter::finish() {
  if (done_ < total_) advance(total_ - done_);
  if (total_ == 0) observer_.progress(1.0);
}

void RecordedScan::check_cancelled() const {
  if (stop_.load(std::memory_order_relaxed)) throw PlanCancelled();
}

void RecordedScan::batch_solved(std::string_view /*strategy*/, const BatchRow& row) {
  events_.push_back({row, 0});
}

void RecordedScan::advance(std::size_t units) { events_.back().units += units; }

void RecordedScan::replay(const std::string& strategy, ProgressMeter& meter) const {
  for (std::size_t k = 0; k < events_.size(); ++k) {
    meter.check_cancelled();
    meter.batch_solved(strategy, events_[k].row);
    meter.advance(events_[k].units);
  }
}

PlanObserver& observer_or_default(PlanObserver* observer) {
  static PlanObserver silent;
  return observer != nullptr ? *observer : silent;
}

}  // namespace shardscope
