// run_isolated: runs one simulation in a forked child process and returns its numbers (SimGrid allows one
// engine per process, so callers that need several simulations — comparisons, sweeps — use this).
#pragma once

#include <functional>
#include <vector>

namespace shardscope::sim {

// Runs `simulation` in a child process; returns the doubles it produced. An exception in the child is
// re-thrown in the parent as SimulationError carrying its message; a crashed child is reported too.
std::vector<double> run_isolated(const std::function<std::vector<double>()>& simulation);

}  // namespace shardscope::sim
