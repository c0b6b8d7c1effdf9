// ChildPool: runs sweep points as child processes (`shardscope sweep-point`, process/subprocess.hpp's
// SubprocessSet), several at once, each in its own process group under a timeout; turns each exit (output,
// error, crash, timeout) into a result row.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/sweep_cost.hpp"
#include "apps/shardscope/sweep_rows.hpp"
#include "process/subprocess.hpp"

namespace shardscope::cli {

// One point to run: where it is in the grid, its id and its axis values.
struct SweepTask {
  std::size_t index = 0;
  std::string id;
  std::vector<std::pair<std::string, std::string>> axes;
  PointCost cost;  // estimated when the sweep asked for it (prepare_sweep)
};

struct SweepRunOptions {
  std::string shardscope_binary;  // the `shardscope` to run `sweep-point` with
  std::string grid_file;
  std::string grid_name;
  bool simulate = false;
  double timeout_seconds = 0;  // per point; 0: none
  int jobs = 1;
};

// The row of a finished point: point id, index, grid, axes, version, revision, simulated, status, metrics
// (null: none; an error row keeps what its point measured), error, wall time. `status` is ok, does-not-fit or
// error.
Json sweep_row(const SweepTask& task, const SweepRunOptions& options, const std::string& status,
               const Json& metrics, const std::string& error, double wall_seconds);

// The path of the running executable (/proc/self/exe), and the `shardscope` beside it.
std::string self_executable();
std::string sibling_executable(const std::string& name);

class ChildPool {
 public:
  explicit ChildPool(SweepRunOptions options);
  ~ChildPool();  // kills (SIGKILL, whole process group) what still runs
  ChildPool(const ChildPool&) = delete;
  ChildPool& operator=(const ChildPool&) = delete;

  bool has_room() const { return static_cast<int>(children_.running()) < options_.jobs; }
  std::size_t running() const { return children_.running(); }
  void start(const SweepTask& task);
  // Waits at most `wait` for children to end (exit, or killed at their timeout); returns their rows.
  std::vector<Json> poll(std::chrono::milliseconds wait);
  void kill_all();

 private:
  struct Child {
    SweepTask task;
    std::chrono::steady_clock::time_point started;
    std::string out_path, err_path;
  };
  Json finish(const Child& child, const process::ExitStatus& status);

  SweepRunOptions options_;
  std::string directory_;  // private temporary folder for the children's outputs
  process::SubprocessSet children_;
  std::map<pid_t, Child> points_;  // what each running child computes, by its process id
};

// What a sweep stopped by Ctrl-C throws, on one machine or under MPI: how far it got and where its rows are.
Interrupted sweep_interrupted(std::size_t done, std::size_t total, const std::string& results_path);

}  // namespace shardscope::cli
