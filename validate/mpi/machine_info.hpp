// What an MPI run ran on: hostnames per rank, ranks per node, the CPU model, the MPI version, memory per
// rank.
#pragma once

#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

// Collective over the world (every rank calls it); the result is complete on every rank. Backend "cpu-mpi";
// each backend adds what it knows (cpu_machine_info: Eigen; cuda_machine_info: the GPU).
MachineInfo mpi_machine_info(double compute_scale);

}  // namespace shardscope::validate
