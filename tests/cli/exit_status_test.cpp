// Tests of the exit-status mapping: each error type selects its documented code and message, and --help and
// docs/cli.md's "Exit status" table list exactly the same codes and meanings.
#include "apps/shardscope/exit_status.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "planner/core/error.hpp"
#ifdef SHARDSCOPE_HAVE_SIM
#include "apps/shardscope/simgrid_simulation.hpp"
#include "sim/simulation_error.hpp"
#endif

namespace shardscope::cli {
namespace {

TEST(ExitStatus, TheCodesAreTheDocumentedOnes) {
  std::vector<int> codes;
  for (const auto& e : name_table<ExitStatus>()) codes.push_back(to_int(e.value));
  EXPECT_EQ(codes, (std::vector<int>{0, 2, 3, 4, 130}));  // no 1, nor CLI11's 104-114
  EXPECT_EQ(to_int(ExitStatus::ok), 0);
  EXPECT_EQ(to_int(ExitStatus::bad_input), 2);
  EXPECT_EQ(to_int(ExitStatus::nothing_fits), 3);
  EXPECT_EQ(to_int(ExitStatus::failed), 4);
  EXPECT_EQ(to_int(ExitStatus::interrupted), 130);
}

TEST(ExitStatus, EachErrorSelectsItsCode) {
  EXPECT_EQ(exit_status_for(InputError("s.yaml", 3, "training", "bad")), ExitStatus::bad_input);
  EXPECT_EQ(exit_status_for(NothingFits("s.yaml: no plan fits")), ExitStatus::nothing_fits);
  EXPECT_EQ(exit_status_for(PlanDoesNotFit("plan.json: the plan needs 9 GiB", 9e9, 8e9)),
            ExitStatus::nothing_fits);
  EXPECT_EQ(exit_status_for(Interrupted("planning cancelled")), ExitStatus::interrupted);
  EXPECT_EQ(exit_status_for(OutputError("cannot write x: No space left on device")), ExitStatus::failed);
  EXPECT_EQ(exit_status_for(std::bad_alloc()), ExitStatus::failed);
  EXPECT_EQ(exit_status_for(std::length_error("vector::reserve")), ExitStatus::failed);
  EXPECT_EQ(exit_status_for(std::runtime_error("unexpected")), ExitStatus::failed);
#ifdef SHARDSCOPE_HAVE_SIM
  EXPECT_EQ(exit_status_for(sim::SimulationError("the collective could not progress")), ExitStatus::failed);
#endif
}

// A bad option is bad input, and its message names the option where InputError names a file: never
// "--shard: shard: ..." (issue 29).
TEST(ExitStatus, UsageErrorsAreBadInputNamingTheOption) {
  const UsageError e("--shard", "expected i/n with 0 <= i < n");
  EXPECT_EQ(exit_status_for(e), ExitStatus::bad_input);
  EXPECT_EQ(failure_message(e), "--shard: expected i/n with 0 <= i < n");
  EXPECT_EQ(e.option(), "--shard");
  EXPECT_EQ(e.file(), "");
  EXPECT_EQ(e.line(), 0);
  EXPECT_EQ(e.message(), "expected i/n with 0 <= i < n");
}

#ifdef SHARDSCOPE_HAVE_SIM
// shardscope-sim prints the simulator's errors as they are; anything else unexpected stays an internal error.
TEST(ExitStatus, TheSimulatorExplainsItsOwnErrors) {
  EXPECT_TRUE(simgrid_simulation().explains(sim::SimulationError("the collective could not progress")));
  EXPECT_FALSE(simgrid_simulation().explains(std::runtime_error("map::at")));
}
#endif

TEST(ExitStatus, MessagesExplainOutOfMemoryAndUnexpectedErrors) {
  // The project's own errors keep their text.
  EXPECT_EQ(failure_message(InputError("s.yaml", 3, "training", "bad")), "s.yaml:3: training: bad");
  EXPECT_EQ(failure_message(OutputError("cannot write x: No space left on device")),
            "cannot write x: No space left on device");
  // Out of memory is said in words, never as the raw "std::bad_alloc".
  const std::string oom = failure_message(std::bad_alloc());
  EXPECT_EQ(oom.rfind("out of memory: ", 0), 0u) << oom;
  EXPECT_EQ(oom.find("bad_alloc"), std::string::npos) << oom;
  EXPECT_EQ(failure_message(std::length_error("vector::_M_default_append")), oom);
  // Anything else is an internal error, with its text and a request to report it.
  const std::string other = failure_message(std::runtime_error("map::at"));
  EXPECT_EQ(other.rfind("internal error: map::at (please report", 0), 0u) << other;
}

TEST(ExitStatus, HelpListsEveryCodeWithItsMeaning) {
  const std::string help = exit_status_help();
  EXPECT_EQ(help.rfind("Exit status:", 0), 0u) << help;
  for (const auto& e : name_table<ExitStatus>()) {
    const std::string line = "\n  " + std::to_string(to_int(e.value)) + "  " + e.description;
    EXPECT_NE(help.find(line), std::string::npos) << help;
  }
  EXPECT_EQ(help.find("\n  1  "), std::string::npos) << help;
}

// The rows `| code | meaning |` of the table under docs/cli.md's "## Exit status" heading.
std::vector<std::pair<std::string, std::string>> documented_exit_statuses() {
  std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/cli.md");
  std::vector<std::pair<std::string, std::string>> rows;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Exit status";
    if (!in_section || line.rfind("| ", 0) != 0 || line.rfind("| code ", 0) == 0) continue;
    const std::size_t bar = line.find(" | ", 2);
    if (bar == std::string::npos || line.size() < bar + 5) continue;
    rows.emplace_back(line.substr(2, bar - 2), line.substr(bar + 3, line.size() - bar - 5));
  }
  return rows;
}

TEST(ExitStatus, TheDocumentedTableIsTheHelpList) {
  std::vector<std::pair<std::string, std::string>> expected;
  for (const auto& e : name_table<ExitStatus>()) {
    expected.emplace_back(std::to_string(to_int(e.value)), std::string(e.description));
  }
  EXPECT_EQ(documented_exit_statuses(), expected)
      << "docs/cli.md, \"Exit status\", against name_table<ExitStatus>()";
}

}  // namespace
}  // namespace shardscope::cli
