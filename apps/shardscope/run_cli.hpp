// run_cli: the whole shardscope command line, which the mains of shardscope and shardscope-sim call.
#pragma once

namespace shardscope::cli {

class Simulation;

// Runs the command line `argv` and returns the process's exit code (exit_status.hpp). With `simulation`
// (shardscope-sim) the simulator's commands run here; without it (shardscope) every command line that
// simulates runs shardscope-sim instead, where that is built.
int run_cli(int argc, char** argv, const Simulation* simulation);

}  // namespace shardscope::cli
