// The options of `shardscope sweep` (GRID, --out, --jobs, --mpi, ...) and the checks of how they combine,
// shared by the command and by shardscope-sweep-mpi so that both read a command line alike.
#include "apps/shardscope/sweep_options.hpp"

#include <CLI/CLI.hpp>
#include <string>

#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/sweep_rows.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {

void add_sweep_options(CLI::App& cmd, SweepOptions& o) {
  cmd.add_option("grid", o.grid, "Sweep grid YAML file (scenarios/sweeps/)")
      ->required()
      ->check(non_empty("a file path"));
  cmd.add_option("--out", o.out, "Results file: one JSON line per point, appended")
      ->check(non_empty("a file path"));
  cmd.add_flag("--dry-run", o.dry_run,
               "List the points (and this shard's share) with their estimated cost, without running them");
  cmd.add_option("--jobs,-j", o.jobs,
                 "Points run at once (default: one per hardware thread; with --mpi, per rank, one per CPU "
                 "the rank may use)")
      ->check(CLI::Range(1, 4096));
  cmd.add_flag("--simulate", o.simulate, "Also simulate each fitting strategy's plan (needs the simulator)");
  cmd.add_option(
         "--shard", o.shard,
         "Run only shard i of n (i/n, 0-based, round robin over the points), or auto: from a Slurm job "
         "array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN)")
      ->check(non_empty("i/n or auto"));
  cmd.add_flag("--resume", o.resume, "Continue a results file: skip the points it already records");
  cmd.add_flag("--retry-errors", o.retry_errors, "With --resume, run the points recorded as errors again");
  cmd.add_option("--timeout", o.timeout_seconds,
                 "Seconds a point may run before it is killed and recorded as an error (default " +
                     std::to_string(static_cast<int>(kDefaultPointTimeoutSeconds)) + ")")
      ->check(CLI::Range(0.001, 1e7));
  cmd.add_flag("--mpi", o.mpi,
               "Share the points among MPI ranks (under mpirun or srun; runs shardscope-sweep-mpi): rank 0 "
               "hands out one point at a time to the rank that asks, runs --jobs points itself too, and "
               "alone appends every rank's rows to --out (one file; --resume reads it)");
  CLI::Option* quiet = cmd.add_flag("--quiet", o.quiet, "No progress on stderr");
  cmd.add_flag("--progress", o.progress,
               "Progress lines on stderr even when it is not a terminal (every 10 s)")
      ->excludes(quiet);
}

void check_sweep_options(const SweepOptions& o, bool simulator_built) {
  if (o.mpi && !o.shard.empty()) {
    throw UsageError("--shard",
                     "--shard and --mpi exclude each other: with --mpi the ranks share every point of the "
                     "grid (run one job of many ranks instead of an array of shards)");
  }
  if (!o.dry_run && o.out.empty()) {
    throw UsageError("--out", "a sweep needs a results file: --out results.jsonl (or --dry-run)");
  }
  if (!o.dry_run) check_results_path("--out", o.out);
  if (o.retry_errors && !o.resume) {
    throw UsageError("--retry-errors", "only applies with --resume");
  }
  // A dry run only estimates what simulating would cost, which needs no simulator.
  if (o.simulate && !simulator_built && !o.dry_run) {
    throw UsageError("--simulate",
                     "needs the simulator, and this shardscope was built without SimGrid (--dry-run "
                     "--simulate still estimates what simulating would cost)");
  }
}

}  // namespace shardscope::cli
