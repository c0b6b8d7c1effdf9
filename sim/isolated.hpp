// run_isolated: runs one collective simulation in a forked child process and returns its numbers (SimGrid
// allows one engine per process). Kept for the collective tests only: iterations go through runner.hpp,
// whose child process is spawned (safe in multi-threaded callers) and returns the full result.
#pragma once

#include <functional>
#include <vector>

namespace shardscope::sim {

// Runs `simulation` in a child process; returns the doubles it produced. An exception in the child is
// re-thrown in the parent as SimulationError carrying its message; a crashed child is reported too.
std::vector<double> run_isolated(const std::function<std::vector<double>()>& simulation);

}  // namespace shardscope::sim
