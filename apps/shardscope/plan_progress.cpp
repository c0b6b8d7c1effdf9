// Planning progress on stderr and the SIGINT flag that cancels planning (see plan_progress.hpp).
#include "apps/shardscope/plan_progress.hpp"

#include <unistd.h>

#include <cmath>

namespace shardscope::cli {
namespace {

// Set by the signal handler, read by the planning thread: a lock-free atomic is async-signal-safe.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_interrupt(int /*signal*/) { g_interrupted.store(true); }

// An updating line appears only for plans that take a while, and is redrawn at most this often.
constexpr auto kLineDelay = std::chrono::milliseconds(300);
constexpr auto kLineInterval = std::chrono::milliseconds(100);
// Plain lines: one per strategy, and one at most this often within a strategy.
constexpr auto kPlainInterval = std::chrono::seconds(1);

}  // namespace

InterruptFlag::InterruptFlag() {
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second Ctrl-C terminates at once
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &previous_[i]);
}

InterruptFlag::~InterruptFlag() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

bool InterruptFlag::raised() const { return g_interrupted.load(); }

ProgressStyle progress_style(bool terminal, bool forced, bool quiet) {
  if (quiet) return ProgressStyle::none;
  if (terminal) return ProgressStyle::updating_line;
  return forced ? ProgressStyle::plain_lines : ProgressStyle::none;
}

ProgressStyle progress_style(bool forced, bool quiet) {
  return progress_style(::isatty(STDERR_FILENO) == 1, forced, quiet);
}

bool line_due(ProgressStyle style, std::chrono::steady_clock::duration since_start,
              std::chrono::steady_clock::duration since_shown, bool shown_before) {
  switch (style) {
    case ProgressStyle::none:
      return false;
    case ProgressStyle::updating_line:
      return since_start >= kLineDelay && (!shown_before || since_shown >= kLineInterval);
    case ProgressStyle::plain_lines:
      return !shown_before || since_shown >= kPlainInterval;
  }
  return false;
}

ProgressPrinter::ProgressPrinter(std::ostream& err, ProgressStyle style, const InterruptFlag& interrupt)
    : err_(err), style_(style), interrupt_(interrupt) {}

void ProgressPrinter::strategy_started(std::string_view name, int index, int count) {
  strategy_ = name;
  index_ = index;
  count_ = count;
  micro_batch_ = 0;
  if (style_ == ProgressStyle::plain_lines) {
    show();
  }
}

void ProgressPrinter::batch_solved(std::string_view /*strategy*/, const BatchRow& row) {
  micro_batch_ = row.micro_batch;
}

void ProgressPrinter::progress(double fraction) {
  fraction_ = fraction;
  const Clock::time_point now = Clock::now();
  if (line_due(style_, now - started_, now - last_shown_, shown_)) show();
}

std::string ProgressPrinter::status_text() const {
  std::string text =
      "planning: strategy " + std::to_string(index_ + 1) + "/" + std::to_string(count_) + " " + strategy_;
  if (micro_batch_ > 0) text += ", batch " + std::to_string(micro_batch_);
  // Whole percent, rounded down: 100 % only once everything is done.
  text += ", " + std::to_string(static_cast<int>(std::floor(100.0 * fraction_))) + " %";
  return text;
}

void ProgressPrinter::show() {
  last_shown_ = Clock::now();
  shown_ = true;
  if (style_ == ProgressStyle::updating_line) {
    err_ << "\r" << status_text() << "\033[K" << std::flush;
    line_drawn_ = true;
  } else if (style_ == ProgressStyle::plain_lines) {
    err_ << status_text() << "\n" << std::flush;
  }
}

void ProgressPrinter::close(bool finished) {
  if (line_drawn_) {
    err_ << "\r\033[K" << std::flush;
    line_drawn_ = false;
  }
  if (finished && style_ == ProgressStyle::plain_lines) err_ << "planning: done, 100 %\n" << std::flush;
}

}  // namespace shardscope::cli
