// Planning progress on stderr (an updating line on a terminal, plain lines on request) and Ctrl-C to cancel.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <ostream>
#include <string>

#include "planner/search/plan_observer.hpp"

namespace shardscope::cli {

// While alive, SIGINT, SIGTERM (a batch scheduler's stop) and SIGHUP (a closed terminal) set a flag instead
// of killing the process, so the command stops its children and keeps what it wrote whole (a second signal
// kills as usual); the destructor restores the previous handlers. One at a time.
class InterruptFlag {
 public:
  InterruptFlag();
  ~InterruptFlag();
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  bool raised() const;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};

// How progress shows: not at all, one line rewritten in place (a terminal), or plain lines.
enum class ProgressStyle { none, updating_line, plain_lines };

// --quiet: none; else a terminal gets an updating line; otherwise plain lines when forced (--progress), else
// none (stderr of a file or pipe stays byte-identical from run to run: transcripts compare it).
ProgressStyle progress_style(bool terminal, bool forced, bool quiet);
// The same for stderr as it is.
ProgressStyle progress_style(bool forced, bool quiet);

// When a progress line is due: an updating line after kLineDelay, at most every kLineInterval; plain lines
// at each report, at most every second. `since_start` and
// `since_shown` are the time the work has run and the time since the last line (the start if none).
bool line_due(ProgressStyle style, std::chrono::steady_clock::duration since_start,
              std::chrono::steady_clock::duration since_shown, bool shown_before);

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
  bool shown_ = false;  // a line was printed
  std::string strategy_;
  int index_ = 0, count_ = 0;
  std::int64_t micro_batch_ = 0;  // 0 until a batch of the current strategy is done
  double fraction_ = 0;
};

}  // namespace shardscope::cli
