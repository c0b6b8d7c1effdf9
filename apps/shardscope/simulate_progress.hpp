// Simulation progress on stderr (simulated time against the planner's estimate, activities) and Ctrl-C to
// cancel, in the same styles as planning progress (plan_progress.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "apps/shardscope/plan_progress.hpp"
#include "sim/simulation_observer.hpp"

namespace shardscope::cli {

// "simulating: 1.234 s of about 3.783 s (32 %), 123456 activities"; the percentage is whole, rounded down,
// and below 100 until the end (the estimate is the planner's, the simulation may take longer); without an
// estimate (0) no percentage.
std::string simulation_status_text(double simulated_seconds, double estimated_seconds,
                                   std::int64_t activities);

class SimulationProgressPrinter : public sim::SimulationObserver {
 public:
  SimulationProgressPrinter(std::ostream& err, ProgressStyle style, const InterruptFlag& interrupt,
                            double estimated_seconds);
  ~SimulationProgressPrinter() override { close(false); }
  SimulationProgressPrinter(const SimulationProgressPrinter&) = delete;
  SimulationProgressPrinter& operator=(const SimulationProgressPrinter&) = delete;
  void progress(double simulated_seconds, std::int64_t activities) override;
  bool cancelled() const override { return interrupt_.raised(); }
  // Ends the output: clears an updating line; plain lines end with "done".
  void close(bool finished);

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream& err_;
  ProgressStyle style_;
  const InterruptFlag& interrupt_;
  double estimated_seconds_;
  Clock::time_point started_ = Clock::now();
  Clock::time_point last_shown_{};
  bool shown_ = false, line_drawn_ = false;
  double simulated_seconds_ = 0;
  std::int64_t activities_ = 0;
};

}  // namespace shardscope::cli
