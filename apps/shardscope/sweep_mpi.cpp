// The MPI side of shardscope-sweep-mpi: rank 0's loop (hand out points, run some, append every
// row) and the other ranks' loop (ask, run, send rows back). Messages are JSON text on MPI_COMM_WORLD.
#include "apps/shardscope/sweep_mpi.hpp"

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>
#include <utility>

#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/sweep_progress.hpp"
#include "apps/shardscope/sweep_rank_watch.hpp"
#include "planner/core/units.hpp"
#include "validate/mpi_base/mpi_error.hpp"
#include "validate/mpi_base/mpi_text.hpp"

namespace shardscope::cli {
namespace {

using mpi::MpiError;
using mpi::TextMessage;

// What the ranks say to each other. A worker asks (empty); rank 0 answers with a task, or empty text when no
// point is left; a worker sends each row, then says it is done (empty) once its points have ended.
enum Tag : int { kAsk = 1, kTask = 2, kRow = 3, kDone = 4 };

std::string task_text(const SweepTask& task) {
  Json axes = Json::array();
  for (const auto& [path, value] : task.axes) axes.push_back({path, value});
  return Json{{"index", task.index}, {"point", task.id}, {"axes", axes}}.dump();
}

SweepTask task_from_text(const std::string& text) {
  const Json json = Json::parse(text);
  SweepTask task;
  task.index = json["index"].get<std::size_t>();
  task.id = json["point"].get<std::string>();
  for (const Json& pair : json["axes"])
    task.axes.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  return task;
}

// Rank 0's part of one pass of its loop: every message waiting, answered or recorded. Returns whether any
// came.
bool take_messages(const std::vector<SweepTask>& tasks, std::size_t& next, bool stopping, RankWatch& watch,
                   const std::function<void(const Json&, int)>& record) {
  bool busy = false;
  for (;;) {
    const std::optional<TextMessage> message = mpi::try_receive_text(MPI_ANY_SOURCE, MPI_ANY_TAG);
    if (!message) return busy;
    busy = true;
    const std::string& text = message->text;
    const int from = message->source;
    const bool lost = std::find(watch.lost().begin(), watch.lost().end(), from) != watch.lost().end();
    watch.heard(from, RankWatch::Clock::now());
    if (message->tag == kAsk) {
      const bool left = next < tasks.size() && !stopping && !lost;  // a lost rank gets no more points
      if (left) watch.handed(from, tasks[next]);
      mpi::send_text(left ? task_text(tasks[next++]) : std::string(), from, kTask);
    } else if (message->tag == kRow && !lost) {  // a lost rank's points already have their error rows
      const Json row = Json::parse(text);
      watch.returned(from, row["index"].get<std::size_t>());
      record(row, from);
    } else if (message->tag == kDone && !lost) {
      watch.done(from);
    }
  }
}

// The sweep's end when ranks were lost: every rank is then stopped (exit 4), since a lost rank cannot join
// the final broadcast.
MpiError lost_ranks_error(const RankWatch& watch, std::size_t done, std::size_t total,
                          const std::string& out) {
  std::string ranks;
  for (int r : watch.lost()) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return MpiError("rank" + std::string(watch.lost().size() > 1 ? "s " : " ") + ranks +
                  " stopped responding (no word for " + units::format_duration(watch.limit_seconds()) +
                  ", past the point timeout and its grace); the points it held have error rows, and " +
                  std::to_string(done) + " of " + std::to_string(total) + " points are recorded in " + out +
                  " (--resume --retry-errors runs the rest)");
}

}  // namespace

MpiSweepCounts coordinate_sweep(const std::vector<SweepTask>& tasks, const SweepRunOptions& options,
                                RowWriter& writer, ProgressStyle style, int ranks) {
  const InterruptFlag interrupt;
  SweepProgress progress(std::cerr, style, tasks.size());
  ChildPool pool(options);
  RankWatch watch(ranks, options.timeout_seconds, RankWatch::Clock::now());
  MpiSweepCounts counts;
  counts.points_per_rank.assign(static_cast<std::size_t>(ranks), 0);
  const std::function<void(const Json&, int)> record = [&](const Json& row, int rank) {
    writer.append(row);
    ++counts.done;
    ++counts.points_per_rank[static_cast<std::size_t>(rank)];
    const std::string status = row["status"].get<std::string>();
    if (status == "ok") ++counts.ok;
    if (status == "does-not-fit") ++counts.no_fit;
    if (status == "error") ++counts.errors;
  };
  std::size_t next = 0;
  progress.update(0, 0);
  while (next < tasks.size() || pool.running() > 0 || !watch.all_done()) {
    bool busy = take_messages(tasks, next, interrupt.raised(), watch, record);
    for (const auto& [rank, held] : watch.newly_lost(RankWatch::Clock::now())) {
      for (const SweepTask& task : held)
        record(sweep_row(task, options, "error", Json(), lost_rank_error(rank, watch.limit_seconds()), 0),
               rank);
    }
    while (next < tasks.size() && pool.has_room() && !interrupt.raised()) {
      pool.start(tasks[next++]);
      busy = true;
    }
    for (const Json& row : pool.poll(std::chrono::milliseconds(pool.running() > 0 ? 2 : 0))) {
      record(row, 0);
      busy = true;
    }
    progress.update(counts.done, counts.errors);
    if (interrupt.raised()) {
      pool.kill_all();
      progress.close();
      throw sweep_interrupted(counts.done, tasks.size(), writer.path());
    }
    if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  progress.close();
  if (!watch.lost().empty()) throw lost_ranks_error(watch, counts.done, tasks.size(), writer.path());
  return counts;
}

namespace {

// Test hook: SHARDSCOPE_SWEEP_FAULT=rank-stops:R makes rank R stop answering once it holds a point, as a
// stopped or hung rank would (tests/cli/sweep_mpi_test.cpp).
void stop_if_asked(int rank) {
  const char* fault = std::getenv("SHARDSCOPE_SWEEP_FAULT");
  if (fault == nullptr || std::string(fault) != "rank-stops:" + std::to_string(rank)) return;
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// Rank 0's answer to an ask, waiting while this rank has nothing else to do; empty optional while none came.
// Throws MpiError when rank 0 has been silent past the limit a rank is given (RankWatch).
std::optional<std::string> answer(bool idle, RankWatch::Clock::time_point asked, double limit_seconds) {
  for (;;) {
    if (std::optional<TextMessage> message = mpi::try_receive_text(0, kTask)) return std::move(message->text);
    if (!idle) return std::nullopt;
    if (std::chrono::duration<double>(RankWatch::Clock::now() - asked).count() > limit_seconds) {
      throw MpiError("rank 0 did not answer for " + units::format_duration(limit_seconds) +
                     " (past the point timeout and its grace): it stopped responding");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

void work_for_rank_zero(const SweepRunOptions& options) {
  const InterruptFlag interrupt;
  ChildPool pool(options);
  int rank = 0;
  SHARDSCOPE_MPI_CALL(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  const double limit_seconds = options.timeout_seconds + kRankGraceSeconds;
  bool asking = false, no_more = false;
  RankWatch::Clock::time_point asked;
  while (!no_more || pool.running() > 0) {
    if (!no_more && !asking && pool.has_room()) {
      mpi::send_text("", 0, kAsk);
      asking = true;
      asked = RankWatch::Clock::now();
    }
    if (asking) {
      if (const std::optional<std::string> text = answer(pool.running() == 0, asked, limit_seconds)) {
        asking = false;
        if (text->empty()) {
          no_more = true;
        } else {
          pool.start(task_from_text(*text));
          stop_if_asked(rank);
          continue;  // ask for the next one at once while there is room
        }
      }
    }
    for (const Json& row : pool.poll(std::chrono::milliseconds(asking ? 2 : 100)))
      mpi::send_text(row.dump(), 0, kRow);
    if (interrupt.raised()) {
      pool.kill_all();
      throw Interrupted("sweep stopped; rank 0 has written the rows of the points that ended");
    }
  }
  mpi::send_text("", 0, kDone);
}

int usable_cpus() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (::sched_getaffinity(0, sizeof cpus, &cpus) != 0) {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  return std::max(1, CPU_COUNT(&cpus));
}

}  // namespace shardscope::cli
