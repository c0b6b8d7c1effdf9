// `shardscope plot` runs shardscope-plot (beside it, built only with Qt 6), so that `shardscope` never links
// Qt: the core-only build has the command too, and says clearly that its plotter is missing.
#pragma once

namespace CLI {
class App;
}

namespace shardscope::cli {

inline constexpr const char* kPlotDescription =
    "Draw a sweep's results (JSON lines or merged CSV) as a line or grouped-bar chart, SVG or PNG";

// Whether this command line is `shardscope plot ...`.
bool runs_in_plotter(int argc, char** argv);

// Replaces this process with shardscope-plot and the arguments after `plot`; throws InputError (exit 2)
// naming the path and the system's reason when it cannot be started (a build without Qt 6).
[[noreturn]] void exec_plotter(int argc, char** argv);

// Lists `plot` in `app` (for --help and the "did you mean" of a typo); selecting it runs shardscope-plot.
void register_plot_command(CLI::App& app, int argc, char** argv);

}  // namespace shardscope::cli
