// SimulationObserver: progress reports and cancellation for simulate_iteration (the sim's side of the
// observer seam that PlanObserver is for the planner).
#pragma once

#include <cstdint>
#include <stdexcept>

namespace shardscope::sim {

// simulate_iteration calls these from the simulating thread: progress about every 4,096 events and once at
// the end; cancelled() at each report. Once it returns true no task starts any more, the activities in
// flight end, and simulate_iteration throws SimulationCancelled. The defaults do nothing and never cancel.
class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  // Simulated seconds so far (not decreasing; the last call has the iteration's) and activities so far.
  virtual void progress(double /*simulated_seconds*/, std::int64_t /*activities*/) {}
  // Polled at each report; a flag behind it that a signal handler or another thread sets must be atomic.
  virtual bool cancelled() const { return false; }
};

// Thrown by simulate_iteration when its observer asks to cancel: no partial result escapes.
class SimulationCancelled : public std::runtime_error {
 public:
  SimulationCancelled() : std::runtime_error("simulation cancelled") {}
};

}  // namespace shardscope::sim
