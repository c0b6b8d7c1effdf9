// Rank 0's watch over the other ranks of an MPI sweep (see sweep_rank_watch.hpp).
#include "apps/shardscope/sweep_rank_watch.hpp"

#include "planner/core/units.hpp"

namespace shardscope::cli {

RankWatch::RankWatch(int ranks, double timeout_seconds, Clock::time_point now)
    : limit_seconds_(timeout_seconds + kRankGraceSeconds) {
  for (int r = 1; r < ranks; ++r) ranks_[r].last_heard = now;
}

void RankWatch::heard(int rank, Clock::time_point now) { ranks_[rank].last_heard = now; }

void RankWatch::handed(int rank, const SweepTask& task) { ranks_[rank].held[task.index] = task; }

void RankWatch::returned(int rank, std::size_t index) { ranks_[rank].held.erase(index); }

void RankWatch::done(int rank) { ranks_[rank].done = true; }

bool RankWatch::all_done() const {
  for (const auto& [rank, state] : ranks_) {
    if (!state.done) return false;
  }
  return true;
}

std::vector<std::pair<int, std::vector<SweepTask>>> RankWatch::newly_lost(Clock::time_point now) {
  std::vector<std::pair<int, std::vector<SweepTask>>> found;
  for (auto& [rank, state] : ranks_) {
    if (state.done || std::chrono::duration<double>(now - state.last_heard).count() <= limit_seconds_)
      continue;
    std::vector<SweepTask> held;
    for (auto& [index, task] : state.held) held.push_back(task);
    state.held.clear();
    state.done = true;
    lost_.push_back(rank);
    found.emplace_back(rank, std::move(held));
  }
  return found;
}

std::string lost_rank_error(int rank, double limit_seconds) {
  return "rank " + std::to_string(rank) + " held this point and stopped responding (no word for " +
         units::format_duration(limit_seconds) +
         ", past the point timeout and its grace); the sweep ended with an error: --resume --retry-errors "
         "runs the point again";
}

}  // namespace shardscope::cli
