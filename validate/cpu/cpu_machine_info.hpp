// What the cpu-mpi run ran on: the MPI machine (validate/mpi/machine_info.hpp) and the Eigen version.
#pragma once

#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

// Collective over the world (every rank calls it).
MachineInfo cpu_machine_info(double compute_scale);

}  // namespace shardscope::validate
