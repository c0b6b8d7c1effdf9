// Runs shardscope-sim for the simulator's subcommands: found beside this executable (/proc/self/exe).
#include "apps/shardscope/simulator_exec.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "apps/shardscope/exit_status.hpp"

namespace shardscope::cli {

// SHARDSCOPE_SIMULATOR_BUILT: 1 or 0, set by CMake on shardscope::cli.
bool simulator_built() { return SHARDSCOPE_SIMULATOR_BUILT != 0; }

bool is_simulator_command(std::string_view argument) {
  return argument == "collective" || argument == "simulate";
}

bool runs_in_simulator(int argc, char** argv) {
  if (argc < 2 || !simulator_built()) return false;
  if (is_simulator_command(argv[1])) return true;
  if (std::string_view(argv[1]) == "compare") return true;  // it simulates each measured plan
  const std::string_view command = argv[1];
  if (command == "sweep-point" || command == "reproduce") {  // a sweep's point, published rows: --simulate
    for (int i = 2; i < argc; ++i) {
      if (std::string_view(argv[i]) == "--simulate") return true;
    }
    return false;
  }
  if (std::string_view(argv[1]) != "plan") return false;
  // `plan --refine K` with K other than 0 simulates its candidates.
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--refine" && i + 1 < argc) return std::string_view(argv[i + 1]) != "0";
    if (a.substr(0, 9) == "--refine=") return a.substr(9) != "0";
  }
  return false;
}

void exec_simulator(char** argv) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::string simulator = (error ? std::filesystem::path(".") : self.parent_path()) / "shardscope-sim";
  ::execv(simulator.c_str(), argv);
  const int reason = errno;
  throw SimulatorUnavailable("the simulator's commands run " + simulator +
                             ", which could not be started: " + std::strerror(reason));
}

void register_simulator_commands(CLI::App& app, char** argv) {
  for (const char* name : {"collective", "simulate"}) {
    CLI::App* cmd = app.add_subcommand(
        name, std::string(name) == "collective" ? kCollectiveDescription : kSimulateDescription);
    cmd->allow_extras();
    cmd->callback([argv] { exec_simulator(argv); });
  }
}

}  // namespace shardscope::cli
