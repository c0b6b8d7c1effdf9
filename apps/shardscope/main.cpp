// shardscope command-line entry point: dispatches to subcommands and maps errors to exit codes.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <vector>

#include "apps/shardscope/commands.hpp"
#include "planner/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"shardscope: plan, simulate and validate sharded data-parallel training"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "shardscope 0.1.0");

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
    return app.exit(e);
  }
  try {
    for (const auto& c : commands) {
      if (c.command->parsed()) return c.run();
    }
  } catch (const shardscope::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
