// A sweep shared among MPI ranks (shardscope-sweep-mpi): rank 0 hands out points one at a time to the rank
// that asks and alone appends every row to the results file; every rank, rank 0 included, runs its points
// as child processes (ChildPool). Only this part of the tool uses MPI (through validate/mpi_base).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "apps/shardscope/plan_progress.hpp"
#include "apps/shardscope/sweep_rows.hpp"
#include "apps/shardscope/sweep_runner.hpp"

namespace shardscope::cli {

// shardscope-sweep-mpi's whole run in one rank (sweep_mpi_run.cpp); returns the exit code. `argv` is the
// command line of `shardscope sweep ... --mpi` (`sweep` included), or the same options without `sweep`.
int run_sweep_mpi(int argc, char** argv);

struct MpiSweepCounts {
  std::size_t done = 0, ok = 0, no_fit = 0, errors = 0;
  std::vector<std::size_t> points_per_rank;  // how many points each rank ran
};

// Rank 0: runs `tasks` with the other ranks (which run work_for_rank_zero) and itself, appending each row
// to `writer` as it arrives, with progress in `style` on stderr. Throws Interrupted on Ctrl-C (the rows
// already written stay), mpi::MpiError (validate/mpi_base; exit 4) when a message cannot be sent or
// received or ranks were lost.
MpiSweepCounts coordinate_sweep(const std::vector<SweepTask>& tasks, const SweepRunOptions& options,
                                RowWriter& writer, ProgressStyle style, int ranks);

// Every other rank: asks rank 0 for a point whenever it has room for one, runs it, sends its row back;
// returns when rank 0 has no point left and its own have ended.
void work_for_rank_zero(const SweepRunOptions& options);

// The CPUs this process may run on (its affinity mask: what mpirun or srun gave the rank), at least 1.
int usable_cpus();

}  // namespace shardscope::cli
