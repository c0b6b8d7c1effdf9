// Simulation progress lines on stderr (see simulate_progress.hpp).
#include "apps/shardscope/simulate_progress.hpp"

#include <algorithm>
#include <cmath>

#include "planner/core/units.hpp"

namespace shardscope::cli {

std::string simulation_status_text(double simulated_seconds, double estimated_seconds,
                                   std::int64_t activities) {
  std::string text = "simulating: " + units::format_duration(simulated_seconds);
  if (estimated_seconds > 0) {
    const double percent = std::min(99.0, std::floor(100.0 * simulated_seconds / estimated_seconds));
    text += " of about " + units::format_duration(estimated_seconds) + " (" +
            std::to_string(static_cast<int>(std::max(0.0, percent))) + " %)";
  }
  return text + ", " + std::to_string(activities) + " activities";
}

SimulationProgressPrinter::SimulationProgressPrinter(std::ostream& err, ProgressStyle style,
                                                     const InterruptFlag& interrupt, double estimated_seconds)
    : err_(err), style_(style), interrupt_(interrupt), estimated_seconds_(estimated_seconds) {}

void SimulationProgressPrinter::progress(double simulated_seconds, std::int64_t activities) {
  simulated_seconds_ = simulated_seconds;
  activities_ = activities;
  const Clock::time_point now = Clock::now();
  if (!line_due(style_, now - started_, now - last_shown_, shown_)) return;
  last_shown_ = now;
  shown_ = true;
  const std::string text = simulation_status_text(simulated_seconds_, estimated_seconds_, activities_);
  if (style_ == ProgressStyle::updating_line) {
    err_ << "\r" << text << "\033[K" << std::flush;
    line_drawn_ = true;
  } else {
    err_ << text << "\n" << std::flush;
  }
}

void SimulationProgressPrinter::close(bool finished) {
  if (line_drawn_) {
    err_ << "\r\033[K" << std::flush;
    line_drawn_ = false;
  }
  if (finished && shown_ && style_ == ProgressStyle::plain_lines) {
    err_ << "simulating: done, " << units::format_duration(simulated_seconds_) << ", " << activities_
         << " activities\n"
         << std::flush;
  }
}

}  // namespace shardscope::cli
