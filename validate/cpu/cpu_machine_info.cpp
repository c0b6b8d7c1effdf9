// The cpu-mpi machine: the MPI one with the Eigen version its products ran on.
#include "validate/cpu/cpu_machine_info.hpp"

#include <Eigen/Core>
#include <string>

#include "validate/mpi/machine_info.hpp"

namespace shardscope::validate {

MachineInfo cpu_machine_info(double compute_scale) {
  MachineInfo info = mpi_machine_info(compute_scale);
  info.versions["eigen"] = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                           "." + std::to_string(EIGEN_MINOR_VERSION);
  return info;
}

}  // namespace shardscope::validate
