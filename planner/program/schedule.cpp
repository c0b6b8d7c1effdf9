// Two-stream list schedule of an iteration program with uncontended collective times.
#include "planner/program/schedule.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace shardscope {
namespace {

double task_seconds(const Task& task, const CollectiveCost& collectives) {
  if (task.total_bytes > 0) return collectives.seconds(task.kind, task.group, task.total_bytes);
  return task.compute_seconds;
}

}  // namespace

ProgramSchedule schedule_program(const IterationProgram& program, const CollectiveCost& collectives) {
  const std::vector<Task>& tasks = program.tasks;
  constexpr double kNotYet = -1;
  std::vector<double> end_seconds(tasks.size(), kNotYet);
  // Per stream: the next task index to look at and when the stream is free.
  std::array<std::size_t, 2> next{0, 0};
  std::array<double, 2> free_at{0, 0};
  const auto stream_of = [](const Task& t) { return t.stream == Task::Stream::compute ? 0 : 1; };
  const auto skip_others = [&](int stream) {
    while (next[stream] < tasks.size() && stream_of(tasks[next[stream]]) != stream) ++next[stream];
  };
  ProgramSchedule out;
  skip_others(0);
  skip_others(1);
  while (next[0] < tasks.size() || next[1] < tasks.size()) {
    bool moved = false;
    for (int stream = 0; stream < 2; ++stream) {
      // Run this stream until it reaches a task whose partner on the other stream has not ended yet.
      while (next[stream] < tasks.size()) {
        const Task& task = tasks[next[stream]];
        double start = free_at[stream];
        if (task.wait_for_other >= 0) {
          const double ready = end_seconds.at(static_cast<std::size_t>(task.wait_for_other));
          if (ready == kNotYet) break;
          start = std::max(start, ready);
        }
        const double seconds = task_seconds(task, collectives);
        end_seconds[next[stream]] = start + seconds;
        free_at[stream] = start + seconds;
        if (stream == 0) out.compute_seconds += seconds;
        ++next[stream];
        skip_others(stream);
        moved = true;
      }
    }
    if (!moved) throw std::logic_error("iteration program: the two streams wait on each other");
  }
  out.iteration_seconds = std::max(free_at[0], free_at[1]);
  return out;
}

}  // namespace shardscope
