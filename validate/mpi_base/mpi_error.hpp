// The one check every MPI call of shardscope goes through: a failed call becomes an MpiError naming it.
#pragma once

#include <stdexcept>

namespace shardscope::mpi {

// An MPI call that failed: "<call> failed: <MPI's error string>".
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Nothing when `code` is MPI_SUCCESS; otherwise throws MpiError naming `call` (the call's source text) and
// MPI's reason for `code`.
void check(int code, const char* call);

}  // namespace shardscope::mpi

// Checks one MPI call: SHARDSCOPE_MPI_CALL(MPI_Barrier(comm)).
#define SHARDSCOPE_MPI_CALL(call) ::shardscope::mpi::check((call), #call)
