// The iteration program scheduled on one GPU's two streams with every collective at its alpha-beta time:
// what the simulator measures where no link is shared, and the planner's prediction for a whole plan.
#pragma once

#include <cstddef>
#include <functional>

#include "planner/cost/collective_cost.hpp"
#include "planner/program/iteration_program.hpp"

namespace shardscope {

struct ProgramSchedule {
  double iteration_seconds = 0;  // when the last task of either stream ends
  double compute_seconds = 0;    // busy time of the compute stream
};

// Runs each stream's tasks in program order, a task starting once its stream is free and the task it waits
// for on the other stream has ended (every rank runs the same program, so collectives start together).
// Throws std::logic_error if the two streams wait on each other (a malformed program).
ProgramSchedule schedule_program(const IterationProgram& program, const CollectiveCost& collectives);

// Told each task's times as the schedule places it: its position in the program, start and end in seconds.
// Each stream's tasks arrive in the order they run, and a task on a stream starts no earlier than the end
// of that stream's task reported before it.
using TaskTimes = std::function<void(std::size_t index, double start_seconds, double end_seconds)>;

// The same schedule with every micro-step run (no steady-state skip, so micro_steps x step_tasks + the
// update tasks are reported): the same figures as schedule_program up to rounding.
ProgramSchedule schedule_every_task(const IterationProgram& program, const CollectiveCost& collectives,
                                    const TaskTimes& watch);

}  // namespace shardscope
