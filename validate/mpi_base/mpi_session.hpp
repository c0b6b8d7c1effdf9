// One process's MPI session: MPI_Init and MPI_Finalize around it, errors returned instead of fatal.
#pragma once

namespace shardscope::mpi {

// MPI_Init on construction (errors returned, not fatal, on MPI_COMM_WORLD; MpiError when MPI_Init fails),
// MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }  // in MPI_COMM_WORLD
  int size() const { return size_; }  // of MPI_COMM_WORLD
  // Ends every rank at once (MPI_Abort) with `exit_code`: for an error or Ctrl-C in the middle of a run.
  [[noreturn]] void abort(int exit_code) const;

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace shardscope::mpi
