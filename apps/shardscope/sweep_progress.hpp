// Sweep progress on stderr: an updating bar on a terminal (done/total, rate, ETA, failures), a plain line
// every 10 s otherwise (Slurm logs), nothing with --quiet.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

#include "apps/shardscope/plan_progress.hpp"

namespace shardscope::cli {

// "[#######.............]  12/40 points (30 %), 1.50 points/s, ETA 19 s, 1 failed" (the bar only when
// `bar`); the rate and ETA once a point is done.
std::string sweep_progress_text(std::size_t done, std::size_t total, std::size_t failed,
                                double elapsed_seconds, bool bar);

class SweepProgress {
 public:
  SweepProgress(std::ostream& err, ProgressStyle style, std::size_t total);
  ~SweepProgress();
  void update(std::size_t done, std::size_t failed);  // shows a line when one is due
  void close();                                       // clears the bar

 private:
  std::ostream& err_;
  ProgressStyle style_;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_, shown_;
  bool drawn_ = false;
  std::size_t last_done_ = static_cast<std::size_t>(-1);
};

}  // namespace shardscope::cli
