// Peak memory of an iteration program over every reachable state of its two streams (one sliding-window
// maximum per compute phase), for the planner's whole-plan prediction.
#include "planner/program/memory_peak.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <vector>

namespace shardscope {
namespace {

double total(const MemoryBytes& bytes) {
  double sum = 0;
  for (double b : bytes) sum += b;
  return sum;
}

// One stream of the unrolled program: its tasks' memory effects and, for each, the number of tasks of the
// other stream that must have ended before it starts.
struct StreamTasks {
  std::vector<double> alloc_bytes;
  std::vector<double> free_bytes;
  std::vector<std::size_t> needs_other;  // tasks of the other stream ended before this one starts

  std::size_t size() const { return alloc_bytes.size(); }
  // Phase 2x: tasks before x ended, x not started; phase 2x + 1: x running. 2 * size() + 1 phases.
  std::vector<double> phase_bytes() const {
    std::vector<double> out;
    out.reserve(2 * size() + 1);
    double held = 0;
    for (std::size_t x = 0; x < size(); ++x) {
      out.push_back(held);
      out.push_back(held + alloc_bytes[x]);
      held += alloc_bytes[x] - free_bytes[x];
    }
    out.push_back(held);
    return out;
  }
  // The other stream's ended tasks each phase needs (the most any task started by then needs).
  std::vector<std::size_t> phase_needs() const {
    std::vector<std::size_t> out;
    out.reserve(2 * size() + 1);
    std::size_t need = 0;
    for (std::size_t x = 0; x < size(); ++x) {
      out.push_back(need);
      need = std::max(need, needs_other[x]);
      out.push_back(need);
    }
    out.push_back(need);
    return out;
  }
};

// The unrolled task list: `steps` copies of the micro-step, then the update, each task's wait resolved to
// an index in that list (-1: none).
struct Unrolled {
  std::vector<const Task*> tasks;
  std::vector<long> waits;
  std::vector<int> steps;  // each task's micro-step (-1: an update task)
};

Unrolled unroll(const IterationProgram& program) {
  const std::size_t length = std::min(program.step_tasks, program.tasks.size());
  const int steps = length > 0 ? std::min(program.micro_steps, 2) : 0;
  Unrolled out;
  for (int step = 0; step < steps; ++step) {
    for (std::size_t i = 0; i < length; ++i) {
      const Task& t = program.tasks[i];
      long wait = -1;
      if (t.wait_for_other >= 0 && !(t.waits_on_previous_step && step == 0)) {
        const int on_step = t.waits_on_previous_step ? step - 1 : step;
        wait = static_cast<long>(on_step) * static_cast<long>(length) + t.wait_for_other;
      }
      out.tasks.push_back(&t);
      out.waits.push_back(wait);
      out.steps.push_back(step);
    }
  }
  const long update_base = static_cast<long>(steps) * static_cast<long>(length);
  for (std::size_t i = length; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    long wait = -1;
    if (t.wait_for_other >= 0) {
      const auto w = static_cast<std::size_t>(t.wait_for_other);
      if (w >= length) {
        wait = update_base + static_cast<long>(w - length);
      } else if (steps > 0) {
        wait = static_cast<long>(steps - 1) * static_cast<long>(length) + static_cast<long>(w);
      }
    }
    out.tasks.push_back(&t);
    out.waits.push_back(wait);
    out.steps.push_back(-1);
  }
  return out;
}

enum class View { reserved, allocated };

// The memory held before any task runs: everything resident, or (allocated) without the runtime reserve
// and the gradients, which the first micro-step's tasks that produce them take.
double starting_bytes(const IterationProgram& program, View view) {
  double held = total(program.resident);
  if (view == View::allocated)
    held -= program.resident[index_of(MemoryCategory::reserve)] +
            program.resident[index_of(MemoryCategory::gradients)];
  return held;
}

double peak_walk(const IterationProgram& program, View view) {
  const Unrolled unrolled = unroll(program);
  const std::size_t n = unrolled.tasks.size();
  // Each task's stream (0 compute, 1 communication) and position in it.
  std::vector<int> stream_of(n);
  std::vector<std::size_t> position(n);
  std::array<StreamTasks, 2> streams;
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = *unrolled.tasks[i];
    const int s = t.stream == Task::Stream::compute ? 0 : 1;
    stream_of[i] = s;
    position[i] = streams[s].size();
    const bool produces = view == View::allocated && unrolled.steps[i] == 0;
    streams[s].alloc_bytes.push_back(total(t.alloc_at_start) + (produces ? t.gradients_produced_bytes : 0.0));
    streams[s].free_bytes.push_back(total(t.free_at_end));
    streams[s].needs_other.push_back(0);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const long w = unrolled.waits[i];
    if (w < 0) continue;
    const auto target = static_cast<std::size_t>(w);
    // A wait on the same stream is already met by the stream's order.
    if (stream_of[target] != stream_of[i])
      streams[stream_of[i]].needs_other[position[i]] = position[target] + 1;
  }
  const std::vector<double> compute_bytes = streams[0].phase_bytes();
  const std::vector<double> comm_bytes = streams[1].phase_bytes();
  const std::vector<std::size_t> compute_needs = streams[0].phase_needs();
  const std::vector<std::size_t> comm_needs = streams[1].phase_needs();

  // Phase pair (p, q) is reachable when the compute tasks started by p need at most q / 2 ended
  // communication tasks and those started by q at most p / 2 ended compute tasks. Both needs grow with the
  // phase, so for each compute phase the reachable communication phases are one window [low, high] that
  // only moves forward: a sliding maximum.
  double peak = 0;
  std::deque<std::size_t> window;  // communication phases, bytes decreasing
  std::size_t next = 0;            // the next communication phase to enter the window
  for (std::size_t p = 0; p < compute_bytes.size(); ++p) {
    const std::size_t low = 2 * compute_needs[p];
    while (next < comm_bytes.size() && comm_needs[next] <= p / 2) {
      while (!window.empty() && comm_bytes[window.back()] <= comm_bytes[next]) window.pop_back();
      window.push_back(next++);
    }
    while (!window.empty() && window.front() < low) window.pop_front();
    if (window.empty()) continue;  // no communication phase is reachable with this one
    peak = std::max(peak, compute_bytes[p] + comm_bytes[window.front()]);
  }
  return starting_bytes(program, view) + peak;
}

}  // namespace

double program_peak_bytes(const IterationProgram& program) { return peak_walk(program, View::reserved); }

double program_allocated_peak_bytes(const IterationProgram& program) {
  return peak_walk(program, View::allocated);
}

}  // namespace shardscope
