// Runs shardscope-plot for `shardscope plot`: found beside this executable (/proc/self/exe).
#include "apps/shardscope/plot_exec.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "apps/shardscope/sweep_runner.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {

bool runs_in_plotter(int argc, char** argv) { return argc >= 2 && std::string_view(argv[1]) == "plot"; }

void exec_plotter(int argc, char** argv) {
  const std::string plotter = sibling_executable("shardscope-plot");
  std::vector<char*> arguments{const_cast<char*>(plotter.c_str())};
  for (int i = 2; i < argc; ++i) arguments.push_back(argv[i]);
  arguments.push_back(nullptr);
  ::execv(plotter.c_str(), arguments.data());
  const int reason = errno;
  throw UsageError("plot",
                   "runs " + plotter + ", which could not be started (" + std::strerror(reason) +
                       "): shardscope-plot is built only when Qt 6 (Gui, Svg) is found, so this build has no "
                       "plotter; install Qt 6 and rebuild, or plot the CSV of `shardscope merge` elsewhere");
}

void register_plot_command(CLI::App& app, int argc, char** argv) {
  CLI::App* cmd = app.add_subcommand("plot", kPlotDescription);
  cmd->allow_extras();
  cmd->callback([argc, argv] { exec_plotter(argc, argv); });
}

}  // namespace shardscope::cli
