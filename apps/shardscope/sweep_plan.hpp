// What a sweep runs: the grid's points with their ids (duplicates dropped), this shard's share
// (--shard i/n, or from a Slurm array), and what a results file already holds (--resume).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "apps/shardscope/sweep_options.hpp"
#include "apps/shardscope/sweep_runner.hpp"
#include "planner/io/sweep_grid.hpp"

namespace shardscope::cli {

struct SweepPoints {
  SweepGrid grid;
  std::vector<SweepTask> tasks;  // in grid order, one per distinct id
  std::size_t duplicates = 0;    // points whose resolved scenario another point already has
};

// Called now and then while the points are resolved: how many of how many are done.
using ResolveProgress = std::function<void(std::size_t done, std::size_t total)>;

// What prepare_sweep estimates of each point (sweep_cost.hpp): nothing, or its cost planned only or also
// simulated.
enum class CostEstimate { none, planned, simulated };

// Reads, expands and resolves the grid (InputError naming the grid file and the axis on a bad value: the
// first point in grid order that has one), estimating each point's cost as `costs` asks. Points are resolved
// on every CPU, each worker with its own resolver; the result does not depend on how many.
SweepPoints prepare_sweep(const std::string& grid_file, const ResolveProgress& progress = {},
                          CostEstimate costs = CostEstimate::none);

// The tasks most expensive first (cost_order_key), ties and unknown costs in grid order: the order --jobs
// and --mpi hand points out in, so that the longest do not start last.
void order_by_cost(std::vector<SweepTask>& tasks, bool simulate);

// Progress of a long resolution on `err`: nothing for the first 2 s (small grids stay silent, so
// transcripts are unchanged), then a line every 2 s.
ResolveProgress resolve_progress_lines(std::ostream& err, const std::string& grid_file);

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
};

// "i/n" with 0 <= i < n, or "auto": SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT.
// `environment` looks variables up (getenv in the tool, a map in tests). InputError on anything else.
using Environment = std::map<std::string, std::string>;
Shard parse_shard(const std::string& text, const Environment& environment);
Environment process_environment();  // the SLURM_ARRAY_* variables of this process

// The tasks of `shard`: every count-th task starting at index (round robin, so shards get alike mixes).
std::vector<SweepTask> shard_tasks(const std::vector<SweepTask>& tasks, const Shard& shard);

// The tasks not yet recorded in `rows` for this mode (`simulate`): a point with an ok or does-not-fit row
// is skipped, one with only error rows too unless `retry_errors`.
std::vector<SweepTask> pending_tasks(const std::vector<SweepTask>& tasks, const std::vector<Json>& rows,
                                     bool simulate, bool retry_errors);

// The points of `tasks` whose rows for this mode are all error rows: a resume without --retry-errors keeps
// them as they are, and the sweep still ends in error for them.
std::size_t kept_error_points(const std::vector<SweepTask>& tasks, const std::vector<Json>& rows,
                              bool simulate);

// What is left of `mine` to run into o.out: all of it without --resume (InputError when o.out already holds
// rows), else the points not recorded there (pending_tasks); counts the unreadable lines in `skipped_lines`
// and, when given, the points kept with only error rows (kept_error_points) in `kept_errors`.
std::vector<SweepTask> tasks_to_run(const std::vector<SweepTask>& mine, const SweepOptions& o,
                                    int* skipped_lines, std::size_t* kept_errors = nullptr);

// The summary line's end when a resume kept points with only error rows ("" for none).
std::string kept_errors_text(std::size_t kept);

// Why a sweep ends in error: `errors` of the `done` points run failed, `kept` earlier ones still have only
// error rows; with the way to run them again.
std::string failed_points_text(std::size_t errors, std::size_t done, std::size_t kept);

}  // namespace shardscope::cli
