// shardscope command-line entry point: dispatches to subcommands and maps errors to exit codes (one place).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <vector>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"

int main(int argc, char** argv) {
  using shardscope::cli::ExitStatus;
  using shardscope::cli::to_int;
  CLI::App app{"shardscope: plan, simulate and validate sharded data-parallel training"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "shardscope 0.1.0");
  app.footer(shardscope::cli::exit_status_help());

  std::vector<shardscope::cli::Registered> commands;
  commands.push_back(shardscope::cli::register_inspect(app));
  commands.push_back(shardscope::cli::register_plan(app));
#ifdef SHARDSCOPE_HAVE_SIM
  commands.push_back(shardscope::cli::register_collective(app));
  commands.push_back(shardscope::cli::register_simulate(app));
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too (CLI11 prints them); every other parse error is bad input.
    const bool success = app.exit(e) == static_cast<int>(CLI::ExitCodes::Success);
    return to_int(success ? ExitStatus::ok : ExitStatus::bad_input);
  }
  try {
    for (const auto& c : commands) {
      if (!c.command->parsed()) continue;
      c.run();
      return to_int(ExitStatus::ok);
    }
  } catch (const shardscope::cli::Interrupted& e) {
    std::cerr << "interrupted: " << e.what() << "\n";
    return to_int(ExitStatus::interrupted);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return to_int(shardscope::cli::exit_status_for(e));
  }
  return to_int(ExitStatus::failure);
}
