// Progress output: the style chosen for a terminal, a file or pipe, --progress and --quiet; when a line is
// due; the simulation's status text; and the lines a SimulationProgressPrinter writes.
#include <gtest/gtest.h>

#include <sstream>

#include "apps/shardscope/plan_progress.hpp"
#include "apps/shardscope/simulate_progress.hpp"

namespace shardscope::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(Progress, StyleFollowsTheTerminalTheFlagsAndQuiet) {
  EXPECT_EQ(progress_style(true, false, false), ProgressStyle::updating_line);
  EXPECT_EQ(progress_style(false, false, false), ProgressStyle::none);        // not a terminal: clean stderr
  EXPECT_EQ(progress_style(false, true, false), ProgressStyle::plain_lines);  // --progress
  EXPECT_EQ(progress_style(true, true, true), ProgressStyle::none);           // --quiet wins
  EXPECT_EQ(progress_style(false, false, true), ProgressStyle::none);
}

TEST(Progress, LinesAreDueByStyle) {
  EXPECT_FALSE(line_due(ProgressStyle::none, seconds(100), seconds(100), false));
  EXPECT_TRUE(line_due(ProgressStyle::plain_lines, milliseconds(0), milliseconds(0), false));
  EXPECT_FALSE(line_due(ProgressStyle::plain_lines, seconds(3), milliseconds(500), true));
  EXPECT_TRUE(line_due(ProgressStyle::plain_lines, seconds(3), seconds(1), true));
  EXPECT_FALSE(line_due(ProgressStyle::updating_line, milliseconds(200), milliseconds(200), false));
  EXPECT_TRUE(line_due(ProgressStyle::updating_line, milliseconds(300), milliseconds(300), false));
  EXPECT_FALSE(line_due(ProgressStyle::updating_line, seconds(1), milliseconds(50), true));
}

TEST(Progress, SimulationStatusTextShowsTimeEstimateAndActivities) {
  EXPECT_EQ(simulation_status_text(1.5, 3.0, 1234),
            "simulating: 1.500 s of about 3.000 s (50 %), 1234 activities");
  // Below 100 % until the end, even past the estimate; no percentage without one.
  EXPECT_EQ(simulation_status_text(4.0, 3.0, 7), "simulating: 4.000 s of about 3.000 s (99 %), 7 activities");
  EXPECT_EQ(simulation_status_text(1.5, 0, 7), "simulating: 1.500 s, 7 activities");
}

TEST(Progress, PlainLinesPrintEachReportAndDoneWhileQuietPrintsNothing) {
  const InterruptFlag interrupt;
  std::ostringstream plain, quiet;
  {
    SimulationProgressPrinter printer(plain, ProgressStyle::plain_lines, interrupt, 2.0);
    printer.progress(0.5, 10);
    printer.close(true);
  }
  EXPECT_EQ(plain.str(),
            "simulating: 500.000 ms of about 2.000 s (25 %), 10 activities\n"
            "simulating: done, 500.000 ms, 10 activities\n");
  {
    SimulationProgressPrinter printer(quiet, ProgressStyle::none, interrupt, 2.0);
    printer.progress(0.5, 10);
    printer.close(true);
  }
  EXPECT_EQ(quiet.str(), "");
  EXPECT_FALSE(SimulationProgressPrinter(quiet, ProgressStyle::none, interrupt, 2.0).cancelled());
}

}  // namespace
}  // namespace shardscope::cli
