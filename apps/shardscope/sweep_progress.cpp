// Sweep progress text and its printer (terminal bar or plain periodic lines).
#include "apps/shardscope/sweep_progress.hpp"

#include <cmath>
#include <cstdio>

namespace shardscope::cli {
namespace {

constexpr auto kBarInterval = std::chrono::milliseconds(200);
constexpr auto kPlainInterval = std::chrono::seconds(10);
constexpr int kBarWidth = 20;

std::string eta_text(double seconds) {
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%.0f s", std::ceil(seconds));
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof text, "%.0f min %02.0f s", std::floor(seconds / 60),
                  std::fmod(std::ceil(seconds), 60));
  } else {
    std::snprintf(text, sizeof text, "%.0f h %02.0f min", std::floor(seconds / 3600),
                  std::floor(std::fmod(seconds, 3600) / 60));
  }
  return text;
}

}  // namespace

std::string sweep_progress_text(std::size_t done, std::size_t total, std::size_t failed,
                                double elapsed_seconds, bool bar) {
  std::string out;
  if (bar) {
    const int filled = total == 0 ? kBarWidth : static_cast<int>(kBarWidth * done / total);
    out += "[" + std::string(static_cast<std::size_t>(filled), '#') +
           std::string(static_cast<std::size_t>(kBarWidth - filled), '.') + "]  ";
  }
  char text[96];
  std::snprintf(
      text, sizeof text, "%zu/%zu points (%.0f %%)", done, total,
      total == 0 ? 100.0 : std::floor(100.0 * static_cast<double>(done) / static_cast<double>(total)));
  out += text;
  if (done > 0 && elapsed_seconds > 0) {
    const double rate = static_cast<double>(done) / elapsed_seconds;
    std::snprintf(text, sizeof text, ", %.2f points/s", rate);
    out += text;
    if (done < total) out += ", ETA " + eta_text(static_cast<double>(total - done) / rate);
  }
  if (failed > 0) out += ", " + std::to_string(failed) + " failed";
  return out;
}

SweepProgress::SweepProgress(std::ostream& err, ProgressStyle style, std::size_t total)
    : err_(err), style_(style), total_(total), start_(std::chrono::steady_clock::now()), shown_(start_) {}

SweepProgress::~SweepProgress() { close(); }

void SweepProgress::update(std::size_t done, std::size_t failed) {
  if (style_ == ProgressStyle::none) return;
  const auto now = std::chrono::steady_clock::now();
  const bool finished = done == total_;
  if (style_ == ProgressStyle::plain_lines) {
    if (done == last_done_ ||
        (!finished && last_done_ != static_cast<std::size_t>(-1) && now - shown_ < kPlainInterval))
      return;
  } else if (!finished && drawn_ && now - shown_ < kBarInterval) {
    return;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const std::string text =
      sweep_progress_text(done, total_, failed, elapsed, style_ == ProgressStyle::updating_line);
  if (style_ == ProgressStyle::updating_line) {
    err_ << "\r\033[K" << text << std::flush;
    drawn_ = true;
  } else {
    err_ << "sweep: " << text << "\n" << std::flush;
  }
  shown_ = now;
  last_done_ = done;
}

void SweepProgress::close() {
  if (drawn_) err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace shardscope::cli
