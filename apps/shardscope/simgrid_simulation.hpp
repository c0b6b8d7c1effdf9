// The SimGrid simulator behind the commands (Simulation), which shardscope-sim's main() passes them; and the
// simulator's own commands, `collective` and `simulate`.
#pragma once

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/simulation.hpp"

namespace shardscope::cli {

const Simulation& simgrid_simulation();

Registered register_collective(CLI::App& app);
Registered register_simulate(CLI::App& app);

}  // namespace shardscope::cli
