// Exposed communication of an iteration program: a sweep over the schedule's compute kernels and
// collectives, both in time order, that settles each collective once no later kernel can overlap it.
#include "planner/program/exposure.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <iterator>
#include <limits>
#include <optional>

#include "planner/program/iteration_program.hpp"
#include "planner/program/schedule.hpp"

namespace shardscope {
namespace {

constexpr std::size_t kStages = std::size(EnumNames<CollectiveCall::Stage>::table);
constexpr std::size_t kKinds = std::size(EnumNames<CollectiveKind>::table);
constexpr std::size_t kGroups = std::size(EnumNames<GroupKind>::table);

std::size_t row_of(const Task& task) {
  return (static_cast<std::size_t>(task.stage) * kKinds + static_cast<std::size_t>(task.kind)) * kGroups +
         static_cast<std::size_t>(task.group);
}

struct Span {
  double start = 0, end = 0;
  std::size_t row = 0;  // collectives: the accumulator they add to
};

// Kernels and collectives as the schedule places them. A collective is settled once the compute stream's
// clock has passed its end (a kernel placed later starts no earlier than that clock); kernels that end
// before every unsettled collective starts are dropped.
class ExposureSweep {
 public:
  std::array<CollectiveExposure, kStages * kKinds * kGroups> rows{};
  double compute_seconds = 0;

  void kernel(double start, double end) {
    kernels_.push_back({start, end, 0});
    compute_seconds += end - start;
    advance_compute_clock(end);
  }

  void collective(const Task& task, double start, double end, bool on_compute_stream) {
    const Span span{start, end, row_of(task)};
    // Each stream reports in time order; keep the pending collectives sorted should both streams run some.
    const auto at = std::upper_bound(pending_.begin(), pending_.end(), span,
                                     [](const Span& a, const Span& b) { return a.start < b.start; });
    pending_.insert(at, span);
    CollectiveExposure& row = rows[span.row];
    row.collectives += 1;
    row.seconds += end - start;
    if (on_compute_stream) advance_compute_clock(end);
    settle();
  }

  void finish() {
    compute_clock_ = std::numeric_limits<double>::infinity();
    settle();
  }

 private:
  void advance_compute_clock(double end) {
    compute_clock_ = std::max(compute_clock_, end);
    settle();
  }

  void settle() {
    while (!pending_.empty() && pending_.front().end <= compute_clock_) {
      const Span c = pending_.front();
      pending_.pop_front();
      // Later collectives start after this one does (each stream's reports are in time order).
      while (!kernels_.empty() && kernels_.front().end <= c.start) kernels_.pop_front();
      double overlapped = 0;
      for (const Span& k : kernels_) {
        if (k.start >= c.end) break;
        overlapped += std::max(0.0, std::min(k.end, c.end) - std::max(k.start, c.start));
      }
      rows[c.row].exposed_seconds += std::max(0.0, (c.end - c.start) - overlapped);
    }
  }

  std::deque<Span> kernels_;  // sorted by start, disjoint (one stream)
  std::deque<Span> pending_;  // collectives not yet settled, sorted by start
  double compute_clock_ = 0;
};

// Every micro-step run and swept.
ProgramExposure swept_exposure(const IterationProgram& program, const CollectiveCost& collectives) {
  ExposureSweep sweep;
  const TaskTimes watch = [&](std::size_t index, double start, double end) {
    const Task& task = program.tasks[index];
    const bool on_compute = task.stream == Task::Stream::compute;
    if (task.total_bytes > 0) {
      sweep.collective(task, start, end, on_compute);
    } else if (on_compute) {
      sweep.kernel(start, end);  // (a zero-time one still moves the compute stream's clock)
    }
  };
  const ProgramSchedule scheduled = schedule_every_task(program, collectives, watch);
  sweep.finish();
  ProgramExposure out;
  out.iteration_seconds = scheduled.iteration_seconds;
  out.compute_seconds = sweep.compute_seconds;
  out.exposed_seconds = std::max(0.0, out.iteration_seconds - out.compute_seconds);
  for (std::size_t i = 0; i < sweep.rows.size(); ++i) {
    CollectiveExposure row = sweep.rows[i];
    if (row.collectives == 0) continue;
    row.group = static_cast<GroupKind>(i % kGroups);
    row.kind = static_cast<CollectiveKind>((i / kGroups) % kKinds);
    row.stage = static_cast<CollectiveCall::Stage>(i / (kGroups * kKinds));
    out.rows.push_back(row);
  }
  return out;
}

ProgramExposure with_micro_steps(const IterationProgram& program, const CollectiveCost& collectives,
                                 int micro_steps) {
  IterationProgram shorter = program;
  shorter.micro_steps = micro_steps;
  return swept_exposure(shorter, collectives);
}

bool same_rows(const ProgramExposure& a, const ProgramExposure& b) {
  if (a.rows.size() != b.rows.size()) return false;
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    if (a.rows[i].stage != b.rows[i].stage || a.rows[i].kind != b.rows[i].kind ||
        a.rows[i].group != b.rows[i].group)
      return false;
  }
  return true;
}

// Whether each row's exposed time grows by the same amount from k to k + 1 micro-steps as from k + 1 to
// k + 2 (up to rounding): the micro-steps have settled into their period.
bool settled(const ProgramExposure& k0, const ProgramExposure& k1, const ProgramExposure& k2) {
  if (!same_rows(k0, k1) || !same_rows(k1, k2)) return false;
  const double scale = std::max(1.0, k2.iteration_seconds);
  for (std::size_t i = 0; i < k0.rows.size(); ++i) {
    const double d1 = k1.rows[i].exposed_seconds - k0.rows[i].exposed_seconds;
    const double d2 = k2.rows[i].exposed_seconds - k1.rows[i].exposed_seconds;
    if (std::abs(d1 - d2) > 1e-10 * scale) return false;
  }
  return true;
}

// Many micro-steps: once periodic, every further micro-step adds the same exposed time to each row (its
// collectives are shifted copies of the one before, beside shifted copies of its kernels), so the rows are
// those of k + 2 micro-steps plus (micro_steps - k - 2) increments; the totals are schedule_program's,
// which skips ahead the same way. Checked: the rows must add up to those totals, else every micro-step runs.
std::optional<ProgramExposure> extrapolated_exposure(const IterationProgram& program,
                                                     const CollectiveCost& collectives) {
  const int k = kSteadyStateAboveSteps;
  const ProgramExposure e0 = with_micro_steps(program, collectives, k);
  const ProgramExposure e1 = with_micro_steps(program, collectives, k + 1);
  ProgramExposure out = with_micro_steps(program, collectives, k + 2);
  if (!settled(e0, e1, out)) return std::nullopt;
  const double more = program.micro_steps - (k + 2);
  double exposed = 0;
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    CollectiveExposure& row = out.rows[i];
    row.collectives += static_cast<std::int64_t>(more) * (row.collectives - e1.rows[i].collectives);
    row.seconds += more * (row.seconds - e1.rows[i].seconds);
    row.exposed_seconds += more * (row.exposed_seconds - e1.rows[i].exposed_seconds);
    exposed += row.exposed_seconds;
  }
  const ProgramSchedule whole = schedule_program(program, collectives);
  out.compute_seconds += more * (out.compute_seconds - e1.compute_seconds);
  out.iteration_seconds = whole.iteration_seconds;
  out.exposed_seconds = std::max(0.0, out.iteration_seconds - out.compute_seconds);
  const double tolerance = 1e-9 * std::max(1.0, whole.iteration_seconds);
  if (std::abs(exposed - out.exposed_seconds) > tolerance) return std::nullopt;
  return out;
}

}  // namespace

ProgramExposure program_exposure(const IterationProgram& program, const CollectiveCost& collectives) {
  if (program.micro_steps > kSteadyStateAboveSteps + 2 && program.step_tasks > 0) {
    if (std::optional<ProgramExposure> e = extrapolated_exposure(program, collectives)) return *e;
  }
  return swept_exposure(program, collectives);
}

}  // namespace shardscope
