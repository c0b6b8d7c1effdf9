// PlanObserver: progress reports and cancellation for plan_scenario / plan_strategy (ninja's Status pattern).
#pragma once

#include <stdexcept>
#include <string_view>

#include "planner/search/batch_row.hpp"

namespace shardscope {

// The planner calls these from the planning thread, in order: for each strategy strategy_started, then for
// each batch size batch_solved followed by progress. It asks cancelled() at every batch boundary (before
// each strategy, each batch size and the Pareto front); once that returns true, planning stops without
// another call and throws PlanCancelled. The defaults do nothing and never cancel.
class PlanObserver {
 public:
  virtual ~PlanObserver() = default;
  // Strategy `index` of `count` (0-based) starts; plan_strategy alone reports index 0 of 1.
  virtual void strategy_started(std::string_view /*name*/, int /*index*/, int /*count*/) {}
  // One batch size of `strategy` is done; `row` equals the one that ends up in the result's batches.
  virtual void batch_solved(std::string_view /*strategy*/, const BatchRow& /*row*/) {}
  // The fraction of the whole call done so far: grows strictly, and the last call reports exactly 1.
  virtual void progress(double /*fraction*/) {}
  // Polled at batch boundaries; a flag behind it that a signal handler or another thread sets must be atomic.
  virtual bool cancelled() const { return false; }
};

// Thrown by plan_scenario / plan_strategy when their observer asks to cancel: no partial result escapes.
class PlanCancelled : public std::runtime_error {
 public:
  PlanCancelled() : std::runtime_error("planning cancelled") {}
};

}  // namespace shardscope
