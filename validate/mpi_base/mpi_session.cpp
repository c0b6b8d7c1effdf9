// MpiSession: MPI_Init, MPI_ERRORS_RETURN on the world, its rank and size, MPI_Finalize, MPI_Abort.
#include "validate/mpi_base/mpi_session.hpp"

#include <mpi.h>

#include <cstdlib>

#include "validate/mpi_base/mpi_error.hpp"

namespace shardscope::mpi {

MpiSession::MpiSession(int* argc, char*** argv) {
  SHARDSCOPE_MPI_CALL(MPI_Init(argc, argv));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  SHARDSCOPE_MPI_CALL(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  SHARDSCOPE_MPI_CALL(MPI_Comm_size(MPI_COMM_WORLD, &size_));
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort(int exit_code) const {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this is for an MPI that would
}

}  // namespace shardscope::mpi
