// What the cpu-mpi run ran on: hostnames per rank, ranks per node, CPU model, MPI and Eigen versions, memory.
#pragma once

#include "validate/core/measurements.hpp"

namespace shardscope::validate {

// Collective over the world (every rank calls it); the result is complete on every rank.
MachineInfo cpu_machine_info(double compute_scale);

}  // namespace shardscope::validate
