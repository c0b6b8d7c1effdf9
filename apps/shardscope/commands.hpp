// The CLI's subcommands: each registers itself on the CLI11 app and runs when selected.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>

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

class Simulation;  // simulation.hpp; null where the simulator is not linked (shardscope)

Registered register_inspect(CLI::App& app);
// `plan --refine` simulates with `simulation`.
Registered register_plan(CLI::App& app, const Simulation* simulation);
// With `simulation`, each measured plan is simulated too.
Registered register_compare(CLI::App& app, const Simulation* simulation);
// `calibrate` in a build with the fitting library (validate/fit with Eigen; calibrate_command.cpp), none
// without it (no_calibrate.cpp): CMake compiles one of the two into shardscope::cli.
std::optional<Registered> register_calibrate(CLI::App& app);
// `sweep` needs the command line as given: `sweep --mpi` runs shardscope-sweep-mpi with it.
Registered register_sweep(CLI::App& app, char** argv);
// Hidden: one point, in the sweep's child process; `--simulate` simulates with `simulation`.
Registered register_sweep_point(CLI::App& app, const Simulation* simulation);
Registered register_merge(CLI::App& app);
// `reproduce`: published measurements predicted by the planner (validate/fit/reproduce.hpp); with
// `simulation`, `--simulate` simulates each row's plan too.
Registered register_reproduce(CLI::App& app, const Simulation* simulation);

}  // namespace shardscope::cli
