// What rank 0 of an MPI sweep knows of each other rank: the points it holds and when it last spoke, so that a
// rank that stops responding (stopped, hung, cut off) ends the sweep instead of hanging it forever.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "apps/shardscope/sweep_plan.hpp"

namespace shardscope::cli {

// A healthy rank speaks at least once per point: each of its points ends (a row) within the point timeout,
// and a rank with room asks at once. Silence longer than the timeout plus this grace (spawning, planning
// the grid, a slow file system) means the rank no longer answers.
inline constexpr double kRankGraceSeconds = 10;

class RankWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // Ranks 1 .. ranks-1 are watched from `now`; a rank is lost after timeout_seconds + kRankGraceSeconds of
  // silence.
  RankWatch(int ranks, double timeout_seconds, Clock::time_point now);

  void heard(int rank, Clock::time_point now);  // any message from it
  void handed(int rank, const SweepTask& task);
  void returned(int rank, std::size_t index);  // its row for point `index` arrived
  void done(int rank);                         // it said it has no more points

  // The ranks silent past the limit at `now` (not done, not reported before), each with the points it
  // held; they are reported once and count as done from then on.
  std::vector<std::pair<int, std::vector<SweepTask>>> newly_lost(Clock::time_point now);

  bool all_done() const;  // every rank said it is done or was given up
  const std::vector<int>& lost() const { return lost_; }
  double limit_seconds() const { return limit_seconds_; }

 private:
  struct Rank {
    Clock::time_point last_heard;
    std::map<std::size_t, SweepTask> held;  // by point index
    bool done = false;
  };
  std::map<int, Rank> ranks_;
  std::vector<int> lost_;
  double limit_seconds_;
};

// The error a lost rank's point gets in its row.
std::string lost_rank_error(int rank, double limit_seconds);

}  // namespace shardscope::cli
