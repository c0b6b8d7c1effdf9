// A sweep shared among MPI ranks (shardscope-sweep-mpi): rank 0 hands out points one at a time to the rank
// that asks and alone appends every row to the results file; every rank, rank 0 included, runs its points
// as child processes (ChildPool). Only this part of the tool includes <mpi.h>.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/shardscope/plan_progress.hpp"
#include "apps/shardscope/sweep_rows.hpp"
#include "apps/shardscope/sweep_runner.hpp"

namespace shardscope::cli {

// An MPI call that failed (the message names the call and MPI's reason); exits 4.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// shardscope-sweep-mpi's whole run in one rank (sweep_mpi_run.cpp); returns the exit code. `argv` is the
// command line of `shardscope sweep ... --mpi` (`sweep` included), or the same options without `sweep`.
int run_sweep_mpi(int argc, char** argv);

// MPI_Init on construction (errors returned, not fatal, on MPI_COMM_WORLD), MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ends every rank at once (MPI_Abort) with `exit_code`: for an error or Ctrl-C in the middle of a sweep.
  [[noreturn]] void abort(int exit_code) const;

 private:
  int rank_ = 0, size_ = 1;
};

// Rank 0's `text` on every rank (its length, then its bytes).
void broadcast_text(std::string& text);
// Rank 0's `value` on every rank.
int broadcast_int(int value);

struct MpiSweepCounts {
  std::size_t done = 0, ok = 0, no_fit = 0, errors = 0;
  std::vector<std::size_t> points_per_rank;  // how many points each rank ran
};

// Rank 0: runs `tasks` with the other ranks (which run work_for_rank_zero) and itself, appending each row
// to `writer` as it arrives, with progress in `style` on stderr. Throws Interrupted on Ctrl-C (the rows
// already written stay), MpiError when a message cannot be sent or received.
MpiSweepCounts coordinate_sweep(const std::vector<SweepTask>& tasks, const SweepRunOptions& options,
                                RowWriter& writer, ProgressStyle style, int ranks);

// Every other rank: asks rank 0 for a point whenever it has room for one, runs it, sends its row back;
// returns when rank 0 has no point left and its own have ended.
void work_for_rank_zero(const SweepRunOptions& options);

// The CPUs this process may run on (its affinity mask: what mpirun or srun gave the rank), at least 1.
int usable_cpus();

}  // namespace shardscope::cli
