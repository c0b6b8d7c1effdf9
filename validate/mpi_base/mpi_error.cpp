// The MPI error check: MPI's error string for a failed call's code.
#include "validate/mpi_base/mpi_error.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace shardscope::mpi {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  const std::string reason =
      length > 0 ? std::string(text, static_cast<std::size_t>(length)) : "MPI error " + std::to_string(code);
  throw MpiError(std::string(call) + " failed: " + reason);
}

}  // namespace shardscope::mpi
