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
// the nccl model every flow of the collective's family carries its payload, and every pair flow of a mesh's
// all-to-all its share.
std::vector<LinkUsage> link_usage(const IterationProgram& program, const Platform& platform, int gpus,
                                  int group_size, const NcclFamilies& nccl, const ExchangeFamilies& exchanges,
                                  double iteration_seconds);

// The result without links: per-GPU numbers, rates, the activity estimate and the trace sorted by rank
// and start time.
IterationResult assemble_result(const IterationProgram& program, double iteration_seconds,
                                const IterationExecutor& executor, int gpus, IterationLog log);

}  // namespace shardscope::sim
