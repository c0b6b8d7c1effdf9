// What a strategy's batch scan reports at its batch boundaries: live to an observer, or recorded and
// replayed.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "planner/search/batch_row.hpp"
#include "planner/search/plan_observer.hpp"

namespace shardscope {

// A scan's cancellation check, its batch rows and its progress units (one per batch size of each strategy).
class ScanEvents {
 public:
  virtual ~ScanEvents() = default;
  virtual void check_cancelled() const = 0;
  virtual void batch_solved(std::string_view strategy, const BatchRow& row) = 0;
  virtual void advance(std::size_t units) = 0;
};

// Turns batch boundaries into observer calls: the cancellation check and a fraction of `total_units` that
// only grows (one unit per batch size of each strategy, plus any final step the caller adds).
class ProgressMeter : public ScanEvents {
 public:
  ProgressMeter(PlanObserver& observer, std::size_t total_units) : observer_(observer), total_(total_units) {}
  PlanObserver& observer() const { return observer_; }
  void check_cancelled() const override;
  void batch_solved(std::string_view strategy, const BatchRow& row) override;
  void advance(std::size_t units) override;
  // Reports the rest, so the last report is exactly 1 (also for a call that had no units at all).
  void finish();

 private:
  PlanObserver& observer_;
  std::size_t total_;
  std::size_t done_ = 0;
};

// A scan on a worker thread: its batch rows and progress units, kept for the planning thread to report in
// strategy order; it stops (PlanCancelled) once the planning thread raises `stop`.
class RecordedScan : public ScanEvents {
 public:
  explicit RecordedScan(const std::atomic<bool>& stop) : stop_(stop) {}
  void check_cancelled() const override;
  void batch_solved(std::string_view strategy, const BatchRow& row) override;
  void advance(std::size_t units) override;
  // The same calls, made now on the live meter (with its cancellation check at each batch boundary).
  void replay(const std::string& strategy, ProgressMeter& meter) const;

 private:
  struct Event {
    BatchRow row;
    std::size_t units;
  };
  const std::atomic<bool>& stop_;
  std::vector<Event> events_;
};

// Passes on only the cancellation of another observer (a phase that reports no progress of its own).
class CancellationOnly final : public PlanObserver {
 public:
  explicit CancellationOnly(const PlanObserver& observer) : observer_(observer) {}
  bool cancelled() const override { return observer_.cancelled(); }

 private:
  const PlanObserver& observer_;
};

// The observer to report to: `observer`, or one that ignores everything and never cancels.
PlanObserver& observer_or_default(PlanObserver* observer);

}  // namespace shardscope
