// The iteration program scheduled on one GPU's two streams with every collective at its alpha-beta time:
// what the simulator measures where no link is shared, and the planner's prediction for a whole plan.
#pragma once

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

}  // namespace shardscope
