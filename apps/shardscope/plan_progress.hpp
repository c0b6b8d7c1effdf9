// Planning progress on stderr (an updating line on a terminal, plain lines on request) and Ctrl-C to cancel.
#pragma once

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <ostream>
#include <string>

#include "planner/search/plan_observer.hpp"

namespace shardscope::cli {

// While alive, SIGINT sets a flag instead of killing the process (a second Ctrl-C kills as usual); the
// destructor restores the previous handler. One at a time.
class InterruptFlag {
 public:
  InterruptFlag();
  ~InterruptFlag();
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  bool raised() const;

 private:
  struct sigaction previous_ {};
};

// How `plan` shows progress: not at all, one line rewritten in place (a terminal), or plain lines.
enum class ProgressStyle { none, updating_line, plain_lines };

// Stderr is a terminal: an updating line; otherwise plain lines when forced (--progress), else none.
ProgressStyle progress_style(bool forced);

// Prints planning progress in `style` and cancels when `interrupt` is raised.
class ProgressPrinter : public PlanObserver {
 public:
  ProgressPrinter(std::ostream& err, ProgressStyle style, const InterruptFlag& interrupt);
  ~ProgressPrinter() override { close(false); }
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;
  void strategy_started(std::string_view name, int index, int count) override;
  void batch_solved(std::string_view strategy, const BatchRow& row) override;
  void progress(double fraction) override;
  bool cancelled() const override { return interrupt_.raised(); }
  // Ends the output: clears an updating line, or prints the last plain line when planning finished.
  void close(bool finished);

 private:
  using Clock = std::chrono::steady_clock;
  std::string status_text() const;
  void show();

  std::ostream& err_;
  ProgressStyle style_;
  const InterruptFlag& interrupt_;
  Clock::time_point started_ = Clock::now();
  Clock::time_point last_shown_{};
  bool line_drawn_ = false;
  std::string strategy_;
  int index_ = 0, count_ = 0;
  std::int64_t micro_batch_ = 0;  // 0 until a batch of the current strategy is done
  double fraction_ = 0;
};

}  // namespace shardscope::cli
