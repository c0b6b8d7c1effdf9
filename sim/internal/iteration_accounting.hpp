// An iteration's accounting: bytes per link direction, the assembled result, and the simulation's size.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/program/iteration_program.hpp"
#include "sim/internal/iteration_executor.hpp"
#include "sim/internal/iteration_rings.hpp"
#include "sim/iteration_sim.hpp"
#include "sim/platform.hpp"
#include "sim/resources.hpp"

namespace shardscope::sim {

// Bytes per link direction: every ring step sends one chunk from each rank to its right neighbour; under
// the nccl model every flow of the collective's family carries its payload.
std::vector<LinkUsage> link_usage(const IterationProgram& program, const Platform& platform, int gpus,
                                  int group_size, const NcclFamilies& nccl, double iteration_seconds);

// The result without links: per-GPU numbers, rates, the activity estimate and the trace sorted by rank
// and start time.
IterationResult assemble_result(const IterationProgram& program, double iteration_seconds,
                                const IterationExecutor& executor, int gpus, IterationLog log);

// Ring messages of one micro-step on all GPUs: per rank one per coarse flow or step-model step (nccl: every
// flow of the family).
std::int64_t step_messages(const IterationProgram& program, int gpus, int group_size, int coarse_above,
                           const NcclFamilies& nccl);

// The simulation's size: no actor (IterationExecutor), and per task on every rank one execution or, for a
// collective, one flow per ring (coarse model) or one message per ring step (step model); under the nccl
// model every flow of the collective's family. `micro_steps` are counted (the program's, or the most a
// steady-state proof may take).
SimulationSize iteration_size(const IterationProgram& program, int gpus, int group_size, int coarse_above,
                              const NcclFamilies& nccl, int micro_steps);

}  // namespace shardscope::sim
