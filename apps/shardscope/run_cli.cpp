// The shardscope command line, for the mains of shardscope and shardscope-sim: dispatches to subcommands,
// writes their output to standard output (checked), and maps every way a run can end to its exit code and
// message (one place).
#include "apps/shardscope/run_cli.hpp"

#include <CLI/CLI.hpp>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <algorithm>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/plot_exec.hpp"
#include "apps/shardscope/simulation.hpp"
#include "apps/shardscope/simulator_exec.hpp"
#include "apps/shardscope/standard_streams.hpp"
#include "planner/core/names.hpp"
#include "planner/core/printable.hpp"

namespace {

using shardscope::cli::ExitStatus;

// "unknown subcommand 'plna'; did you mean 'plan'?" when the first argument names no subcommand (CLI11
// would only say that a subcommand is required); empty otherwise.
std::string unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || !app.get_subcommands().empty()) return "";
  if (!shardscope::cli::simulator_built() && shardscope::cli::is_simulator_command(argv[1])) {
    return "subcommand '" + std::string(argv[1]) + "' needs the simulator, and this shardscope was built " +
           "without SimGrid";
  }
  std::vector<std::string> known;
  for (const CLI::App* c : app.get_subcommands({})) known.push_back(c->get_name());
  return "unknown subcommand '" + std::string(argv[1]) + "'" +
         shardscope::suggest_or_list(argv[1], known, "expected one of");
}

// Every subcommand on `app`: the simulator's own with `simulation`, else (where shardscope-sim is built)
// ones that run shardscope-sim.
std::vector<shardscope::cli::Registered> register_commands(CLI::App& app, int argc, char** argv,
                                                           const shardscope::cli::Simulation* simulation) {
  namespace cli = shardscope::cli;
  std::vector<cli::Registered> commands;
  commands.push_back(cli::register_inspect(app));
  commands.push_back(cli::register_plan(app, simulation));
  if (std::optional<cli::Registered> calibrate = cli::register_calibrate(app)) commands.push_back(*calibrate);
  commands.push_back(cli::register_compare(app, simulation));
  commands.push_back(cli::register_reproduce(app, simulation));
  commands.push_back(cli::register_sweep(app, argv));
  commands.push_back(cli::register_merge(app));
  cli::register_plot_command(app, argc, argv);
  commands.push_back(cli::register_sweep_point(app, simulation));
  if (simulation != nullptr) {
    simulation->add_commands(app, commands);
  } else if (cli::simulator_built()) {
    cli::register_simulator_commands(app, argv);
  }
  return commands;
}

// Parses the command line and runs the chosen subcommand, which prints to `out`; throws what it throws.
ExitStatus parse_and_run(int argc, char** argv, const shardscope::cli::Simulation* simulation,
                         std::ostream& out) {
  CLI::App app{"shardscope: plan, simulate and validate sharded data-parallel training", "shardscope"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "shardscope 0.1.0");
  app.footer(shardscope::cli::exit_status_help());
  const std::vector<shardscope::cli::Registered> commands = register_commands(app, argc, argv, simulation);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too (CLI11 prints them); every other parse error (a missing or
    // extra argument, an unknown option, a value that does not convert or fails its check, options that
    // exclude or require each other) is a usage error.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e, out, std::cerr);
      return ExitStatus::ok;
    }
    const std::string unknown = unknown_subcommand(app, argc, argv);
    if (unknown.empty()) {
      std::ostringstream err;
      app.exit(e, out, err);
      std::cerr << shardscope::cli::terminal_text(err.str());
    } else {
      std::cerr << shardscope::cli::terminal_text(unknown) << "\nRun with --help for more information.\n";
    }
    return ExitStatus::bad_input;
  }
  for (const auto& c : commands) {
    if (!c.command->parsed()) continue;
    c.run(out);
    return ExitStatus::ok;
  }
  throw std::logic_error("no subcommand ran although one is required");
}

// Installs the abort and terminate guards before the libraries' static initialisation runs (the dynamic
// loader calls the executable's .preinit_array first), so that even an allocation failing while SimGrid or
// yaml-cpp start up exits 4 with a message instead of 134.
extern "C" void install_guards_first(int /*argc*/, char** /*argv*/, char** /*environment*/) {
  shardscope::cli::install_signal_guards();
}
[[gnu::section(".preinit_array"), gnu::used]] void (*const preinit_guards)(int, char**,
                                                                           char**) = install_guards_first;

}  // namespace

namespace shardscope::cli {

int run_cli(int argc, char** argv, const Simulation* simulation) {
#ifdef __GLIBC__
  // The planner's helper threads allocate little (their DP buffers are pooled): one malloc arena keeps each
  // thread from reserving 64 MiB of address space of its own, which matters under `ulimit -v`.
  mallopt(M_ARENA_MAX, 1);
#endif
  // `plot` runs in shardscope-plot, which links Qt; this executable does not (plot_exec.hpp).
  if (cli::runs_in_plotter(argc, argv)) {
    try {
      cli::exec_plotter(argc, argv);
    } catch (const std::exception& e) {
      std::cerr << "error: " << shardscope::cli::terminal_text(cli::failure_message(e)) << "\n";
      return cli::to_int(cli::exit_status_for(e));
    }
  }
  // Without the simulator linked, its commands run in shardscope-sim, which links SimGrid; shardscope does
  // not, and starts in a few milliseconds instead of ~35 (planner/README.md, "Benchmark").
  if (simulation == nullptr && cli::runs_in_simulator(argc, argv)) {
    try {
      cli::exec_simulator(argv);
    } catch (const cli::SimulatorUnavailable& e) {
      std::cerr << "error: " << shardscope::cli::terminal_text(e.what()) << "\n";
      return cli::to_int(cli::exit_status_for(e));
    }
  }
  if (!cli::guard_standard_descriptors()) {
    std::cerr << cli::kStandardOutputClosed;
    return cli::to_int(ExitStatus::bad_input);
  }
  std::ostringstream out;  // the command's standard output, written in full and checked at the end
  ExitStatus status = ExitStatus::ok;
  std::string message;  // what stderr says after the output
  try {
    status = parse_and_run(argc, argv, simulation, out);
  } catch (const cli::Interrupted& e) {
    status = ExitStatus::interrupted;
    message = std::string("interrupted: ") + e.what();
  } catch (const std::exception& e) {
    status = cli::exit_status_for(e);
    const bool simulator_error = simulation != nullptr && simulation->explains(e);
    message = "error: " + (simulator_error ? std::string(e.what()) : cli::failure_message(e));
  } catch (...) {
    status = ExitStatus::failed;
    message =
        "error: internal error: an exception of unknown type (please report it with the command and its "
        "input)";
  }
  try {
    cli::write_standard_output(out.view());
  } catch (const cli::OutputError& e) {
    std::cerr << "error: " << shardscope::cli::terminal_text(e.what()) << "\n";
    if (status == ExitStatus::ok) status = ExitStatus::failed;
  }
  if (!message.empty()) std::cerr << shardscope::cli::terminal_text(message) << "\n";
  return cli::to_int(status);
}

}  // namespace shardscope::cli
