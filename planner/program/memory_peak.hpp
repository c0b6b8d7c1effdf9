// The peak memory per GPU of an iteration program: the most any order of its two streams can hold at once.
#pragma once

#include "planner/program/iteration_program.hpp"

namespace shardscope {

// The largest memory in use (resident states and reserve included) over every state the two streams can
// reach: each stream runs its tasks in order, a task starts only once the task it waits for on the other
// stream has ended, memory is taken when a task starts and given back when it ends. Whatever the durations
// (uncontended or contended links), a run of the program passes only through such states, so the simulator
// never measures more; with one stream (overlap off) it is exactly the simulator's peak. Two micro-steps
// and the update are walked: gathers run at most one micro-step ahead, so later micro-steps repeat the
// second's states.
double program_peak_bytes(const IterationProgram& program);

// The same walk for the tensors a framework has allocated (PyTorch's max_memory_allocated, where the peak
// above is its max_memory_reserved): without the runtime reserve, and with the gradients taken by the
// first micro-step's tasks that produce them (Task::gradients_produced_bytes: a reduce-scatter or a
// backward) instead of held from the start. At most program_peak_bytes less the reserve; the simulator
// measures the same.
double program_allocated_peak_bytes(const IterationProgram& program);

}  // namespace shardscope
