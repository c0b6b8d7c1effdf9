// The simulator's commands in their own executable: `shardscope` runs `shardscope-sim` (beside it) for
// `simulate` and `collective`, so that plan and inspect start without loading SimGrid and ns-3.
#pragma once

#include <string_view>

namespace CLI {
class App;
}

namespace shardscope::cli {

// One-line descriptions of the simulator's subcommands (both executables' help lists them alike).
inline constexpr const char* kCollectiveDescription =
    "Simulate one collective on a cluster (SimGrid) and report bandwidth";
inline constexpr const char* kSimulateDescription =
    "Simulate one training iteration of a plan on the cluster (SimGrid)";

// Whether this build has the simulator: shardscope-sim, beside shardscope.
bool simulator_built();

bool is_simulator_command(std::string_view argument);
// Whether this command line runs in shardscope-sim (never without it): `collective`, `simulate`, `compare`,
// `plan --refine K` (K > 0), `sweep-point --simulate` and `reproduce --simulate`.
bool runs_in_simulator(int argc, char** argv);

// Replaces this process with shardscope-sim and the same arguments; throws SimulatorUnavailable (exit 4,
// naming the path and the system's reason) when it cannot be started.
void exec_simulator(char** argv);

// Lists `collective` and `simulate` in `app` (for --help and the "did you mean" of a typo); selecting one
// runs shardscope-sim with `argv`.
void register_simulator_commands(CLI::App& app, char** argv);

}  // namespace shardscope::cli
