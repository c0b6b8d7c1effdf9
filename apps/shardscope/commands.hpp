// The CLI's subcommands: each registers itself on the CLI11 app and runs when selected.
#pragma once

#include <functional>
#include <iosfwd>

namespace CLI {
class App;
}

namespace shardscope::cli {

// A subcommand adds itself to `app` and returns the action to run when it is selected. The action prints
// its report to `out` (main() writes it to standard output and checks that write), returns on success and
// throws on failure (InputError, NothingFits, OutputError, ...); main() reports the error and chooses the
// exit code (exit_status.hpp).
using Action = std::function<void(std::ostream& out)>;
struct Registered {
  CLI::App* command;
  Action run;
};

Registered register_inspect(CLI::App& app);
Registered register_plan(CLI::App& app);
Registered register_compare(CLI::App& app);
#ifdef SHARDSCOPE_HAVE_FIT
Registered register_calibrate(CLI::App& app);
#endif
// `sweep` needs the command line as given: `sweep --mpi` runs shardscope-sweep-mpi with it.
Registered register_sweep(CLI::App& app, char** argv);
Registered register_sweep_point(CLI::App& app);  // hidden: one point, in the sweep's child process
Registered register_merge(CLI::App& app);
#ifdef SHARDSCOPE_HAVE_SIM
Registered register_collective(CLI::App& app);
Registered register_simulate(CLI::App& app);
#endif

}  // namespace shardscope::cli
