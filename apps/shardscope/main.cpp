// shardscope command-line entry point: dispatches to subcommands and maps errors to exit codes (one place).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "planner/core/printable.hpp"

namespace {

// An error message for the terminal: input it quotes (a key, a value, a path) keeps no control character or
// invalid UTF-8 (written \xNN, README "Names"); its line breaks stay.
std::string terminal_text(std::string_view text) {
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out += shardscope::escape_unprintable(text.substr(start, end - start));
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

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
    std::ostringstream out, err;
    const bool success = app.exit(e, out, err) == static_cast<int>(CLI::ExitCodes::Success);
    std::cout << out.str();
    std::cerr << terminal_text(err.str());
    return to_int(success ? ExitStatus::ok : ExitStatus::bad_input);
  }
  try {
    for (const auto& c : commands) {
      if (!c.command->parsed()) continue;
      c.run();
      return to_int(ExitStatus::ok);
    }
  } catch (const shardscope::cli::Interrupted& e) {
    std::cerr << "interrupted: " << terminal_text(e.what()) << "\n";
    return to_int(ExitStatus::interrupted);
  } catch (const std::exception& e) {
    std::cerr << "error: " << terminal_text(e.what()) << "\n";
    return to_int(shardscope::cli::exit_status_for(e));
  }
  return to_int(ExitStatus::failure);
}
