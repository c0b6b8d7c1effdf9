// shardscope command-line entry point: dispatches to subcommands, writes their output to standard output
// (checked), and maps every way a run can end to its exit code and message (one place).
#include <CLI/CLI.hpp>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <algorithm>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/plot_exec.hpp"
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
#if !defined(SHARDSCOPE_HAVE_SIM) && !defined(SHARDSCOPE_SIM_EXEC)
  for (const char* simulator_command : {"collective", "simulate"}) {
    if (std::string(argv[1]) == simulator_command) {
      return "subcommand '" + std::string(argv[1]) + "' needs the simulator, and this shardscope was built " +
             "without SimGrid";
    }
  }
#endif
  std::vector<std::string> known;
  for (const CLI::App* c : app.get_subcommands({})) known.push_back(c->get_name());
  return "unknown subcommand '" + std::string(argv[1]) + "'" +
         shardscope::suggest_or_list(argv[1], known, "expected one of");
}

// Parses the command line and runs the chosen subcommand, which prints to `out`; throws what it throws.
ExitStatus parse_and_run(int argc, char** argv, std::ostream& out) {
  CLI::App app{"shardscope: plan, simulate and validate sharded data-parallel training", "shardscope"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "shardscope 0.1.0");
  app.footer(shardscope::cli::exit_status_help());

  std::vector<shardscope::cli::Registered> commands;
  commands.push_back(shardscope::cli::register_inspect(app));
  commands.push_back(shardscope::cli::register_plan(app));
#ifdef SHARDSCOPE_HAVE_FIT
  commands.push_back(shardscope::cli::register_calibrate(app));
#endif
  commands.push_back(shardscope::cli::register_compare(app));
  commands.push_back(shardscope::cli::register_sweep(app, argv));
  commands.push_back(shardscope::cli::register_merge(app));
  shardscope::cli::register_plot_command(app, argc, argv);
  commands.push_back(shardscope::cli::register_sweep_point(app));
#ifdef SHARDSCOPE_HAVE_SIM
  commands.push_back(shardscope::cli::register_collective(app));
  commands.push_back(shardscope::cli::register_simulate(app));
#elif defined(SHARDSCOPE_SIM_EXEC)
  shardscope::cli::register_simulator_commands(app, argv);
#endif

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

int main(int argc, char** argv) {
  namespace cli = shardscope::cli;
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
#ifdef SHARDSCOPE_SIM_EXEC
  // The simulator's commands run in shardscope-sim, which links SimGrid; this executable does not, and
  // starts in a few milliseconds instead of ~35 (planner/README.md, "Benchmark").
  if (cli::runs_in_simulator(argc, argv)) {
    try {
      cli::exec_simulator(argv);
    } catch (const cli::SimulatorUnavailable& e) {
      std::cerr << "error: " << shardscope::cli::terminal_text(e.what()) << "\n";
      return cli::to_int(cli::exit_status_for(e));
    }
  }
#endif
  if (!cli::guard_standard_descriptors()) {
    std::cerr << cli::kStandardOutputClosed;
    return cli::to_int(ExitStatus::bad_input);
  }
  std::ostringstream out;  // the command's standard output, written in full and checked at the end
  ExitStatus status = ExitStatus::ok;
  std::string message;  // what stderr says after the output
  try {
    status = parse_and_run(argc, argv, out);
  } catch (const cli::Interrupted& e) {
    status = ExitStatus::interrupted;
    message = std::string("interrupted: ") + e.what();
  } catch (const std::exception& e) {
    status = cli::exit_status_for(e);
    message = "error: " + cli::failure_message(e);
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
