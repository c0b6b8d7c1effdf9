// Two-stream list schedule of an iteration program with uncontended collectives, micro-step by micro-step
// (memory of one micro-step), skipping ahead once the micro-steps settle into a steady period.
#include "planner/program/schedule.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace shardscope {
namespace {

constexpr double kNotYet = -1;

double task_seconds(const Task& task, const CollectiveCost& collectives) {
  if (task.total_bytes > 0) return collectives.seconds(task.kind, task.group, task.total_bytes);
  return task.compute_seconds;
}

int stream_of(const Task& t) { return t.stream == Task::Stream::compute ? 0 : 1; }

// The two streams and the list scheduling of one section of the program (a micro-step, or the update).
struct Streams {
  std::array<double, 2> free_at{0, 0};
  double compute_seconds = 0;

  const TaskTimes* watch = nullptr;  // told each task's times as it is placed (none: nobody watches)

  // Schedules tasks [begin, end) (durations in seconds_of): `ready` gives the end of the task a task waits
  // for (kNotYet: not scheduled yet), `ends` receives each task's end at index - begin.

  template <typename Ready>
  void run(const std::vector<Task>& tasks, const std::vector<double>& seconds_of, std::size_t begin,
           std::size_t end, const Ready& ready, std::vector<double>& ends) {
    std::array<std::size_t, 2> next{begin, begin};
    const auto skip_others = [&](int stream) {
      while (next[stream] < end && stream_of(tasks[next[stream]]) != stream) ++next[stream];
    };
    skip_others(0);
    skip_others(1);
    while (next[0] < end || next[1] < end) {
      bool moved = false;
      for (int stream = 0; stream < 2; ++stream) {
        // Run this stream until it reaches a task whose partner on the other stream has not ended yet.
        while (next[stream] < end) {
          const Task& task = tasks[next[stream]];
          double start = free_at[stream];
          if (task.wait_for_other >= 0) {
            const double partner = ready(task);
            if (partner == kNotYet) break;
            start = std::max(start, partner);
          }
          const double seconds = seconds_of[next[stream]];
          ends[next[stream] - begin] = start + seconds;
          if (watch != nullptr) (*watch)(next[stream], start, start + seconds);
          free_at[stream] = start + seconds;
          if (stream == 0) compute_seconds += seconds;
          ++next[stream];
          skip_others(stream);
          moved = true;
        }
      }
      if (!moved) throw std::logic_error("iteration program: the two streams wait on each other");
    }
  }
};

// The micro-step positions whose end times a later section reads: those the next micro-step waits on, and
// those the update waits on. With the two stream clocks, they are the whole state one micro-step passes on.
std::vector<std::size_t> carried_positions(const IterationProgram& program) {
  std::set<std::size_t> carried;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    const auto w = static_cast<std::size_t>(t.wait_for_other);
    if (t.wait_for_other >= 0 && w < program.step_tasks &&
        (i >= program.step_tasks || t.waits_on_previous_step))
      carried.insert(w);
  }
  return {carried.begin(), carried.end()};
}

// True when every component of `now` is `before` moved by one and the same amount (up to rounding):
// in a max-plus system of fixed durations every later micro-step then moves by that amount again.
bool uniform_shift(const std::vector<double>& before, const std::vector<double>& now, double& shift) {
  shift = now[0] - before[0];
  for (std::size_t i = 1; i < now.size(); ++i) {
    if (std::abs((now[i] - before[i]) - shift) > 1e-12 * std::max(1.0, std::abs(now[i]))) return false;
  }
  return true;
}

// The schedule; with a watcher every micro-step runs (no steady-state skip) and each task is reported.
ProgramSchedule schedule(const IterationProgram& program, const CollectiveCost& collectives,
                         const TaskTimes* watch) {
  const std::vector<Task>& tasks = program.tasks;
  const std::size_t length = std::min(program.step_tasks, tasks.size());
  const int micro_steps = length > 0 ? program.micro_steps : 0;
  std::vector<double> previous(length, kNotYet), current(length, kNotYet);
  std::vector<double> update(tasks.size() - length, kNotYet);
  std::vector<double> seconds_of;  // each task's duration, priced once for all micro-steps
  seconds_of.reserve(tasks.size());
  for (const Task& t : tasks) seconds_of.push_back(task_seconds(t, collectives));
  Streams streams;
  streams.watch = watch;
  const std::vector<std::size_t> carried = carried_positions(program);
  std::vector<std::vector<double>> states;  // per micro-step: the stream clocks and the carried ends

  for (int step = 0; step < micro_steps; ++step) {
    std::fill(current.begin(), current.end(), kNotYet);
    const double compute_before = streams.compute_seconds;
    streams.run(
        tasks, seconds_of, 0, length,
        [&](const Task& t) {
          const auto w = static_cast<std::size_t>(t.wait_for_other);
          if (!t.waits_on_previous_step) return current.at(w);
          return step == 0 ? 0.0 : previous.at(w);  // the first micro-step has none before it
        },
        current);
    std::swap(previous, current);  // `previous` now holds this micro-step's ends
    if (watch != nullptr || micro_steps <= kSteadyStateAboveSteps || step + 1 >= micro_steps) continue;
    std::vector<double> state{streams.free_at[0], streams.free_at[1]};
    for (std::size_t w : carried) state.push_back(previous[w]);
    states.push_back(std::move(state));
    double shift = 0, shift_before = 0;
    const std::size_t n = states.size();
    if (n >= 3 && uniform_shift(states[n - 2], states[n - 1], shift) &&
        uniform_shift(states[n - 3], states[n - 2], shift_before) &&
        std::abs(shift - shift_before) <= 1e-12 * std::max(1.0, std::abs(shift))) {
      // Periodic: the remaining micro-steps each move every clock and carried end by `shift`.
      const double skipped = micro_steps - 1 - step;
      for (double& t : streams.free_at) t += skipped * shift;
      for (std::size_t w : carried) previous[w] += skipped * shift;
      streams.compute_seconds += skipped * (streams.compute_seconds - compute_before);
      break;
    }
    if (n > 3) states.erase(states.begin());
  }
  streams.run(
      tasks, seconds_of, length, tasks.size(),
      [&](const Task& t) {
        const auto w = static_cast<std::size_t>(t.wait_for_other);
        return w < length ? (micro_steps > 0 ? previous.at(w) : 0.0) : update.at(w - length);
      },
      update);
  ProgramSchedule out;
  out.compute_seconds = streams.compute_seconds;
  out.iteration_seconds = std::max(streams.free_at[0], streams.free_at[1]);
  return out;
}

}  // namespace

ProgramSchedule schedule_program(const IterationProgram& program, const CollectiveCost& collectives) {
  return schedule(program, collectives, nullptr);
}

ProgramSchedule schedule_every_task(const IterationProgram& program, const CollectiveCost& collectives,
                                    const TaskTimes& watch) {
  return schedule(program, collectives, &watch);
}

}  // namespace shardscope
