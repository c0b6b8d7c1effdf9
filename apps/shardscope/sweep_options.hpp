// The options of `shardscope sweep`, shared by the command and by shardscope-sweep-mpi (which `sweep --mpi`
// runs with the same command line).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace shardscope::cli {

// A point that runs longer than this is killed and recorded as an error row (--timeout).
inline constexpr double kDefaultPointTimeoutSeconds = 3600;

struct SweepOptions {
  std::string grid, out, shard;
  int jobs = 0;  // 0: one per hardware thread
  bool simulate = false, resume = false, retry_errors = false, dry_run = false, progress = false,
       quiet = false, mpi = false;
  double timeout_seconds = kDefaultPointTimeoutSeconds;
};

// Adds GRID and the sweep's options to `command`.
void add_sweep_options(CLI::App& command, SweepOptions& o);

// Throws InputError naming the flag for options that do not go together: --shard with --mpi, no --out
// (unless --dry-run), --retry-errors without --resume, --simulate when `simulator_built` is false.
void check_sweep_options(const SweepOptions& o, bool simulator_built);

}  // namespace shardscope::cli
