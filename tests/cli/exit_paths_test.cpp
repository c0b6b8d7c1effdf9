// CLI tests of every way a run ends: each CLI11 usage error exits 2 (never CLI11's own 104-114), --help and
// --version exit 0, outputs that fail (a full device, a closed stdout, a missing folder, a file too large)
// are reported with the reason and never exit 0, and out of memory is a clear message with exit 4.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kScenario = kSource + "/scenarios/default.yaml";

constexpr const char* kRunWithHelp = "\nRun with --help for more information.\n";

struct UsageCase {
  std::string arguments;
  std::string message;  // CLI11's first line on stderr
};

TEST(CliExitPaths, EveryKindOfUsageErrorExitsTwo) {
  const std::vector<UsageCase> cases = {
      {"", "A subcommand is required"},                                                   // no subcommand
      {"plan --bogus " + kScenario, "The following argument was not expected: --bogus"},  // unknown option
      {"inspect " + kScenario + " extra.yaml",
       "The following argument was not expected: extra.yaml"},                            // extra
      {"plan --json=maybe " + kScenario, "Could not convert: --json = maybe"},            // bad conversion
      {"plan " + kScenario + " --out", "--out: 1 required TEXT missing"},                 // missing value
      {"plan --out '' " + kScenario, "--out: expected a file path, got an empty value"},  // failed check
      {"--bogus", "A subcommand is required"},                                            // top-level option
  };
  for (const UsageCase& c : cases) {
    const auto r = test::run_command(kBinary + " " + c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.err;
    EXPECT_EQ(r.err, c.message + kRunWithHelp) << c.arguments;
    EXPECT_EQ(r.out, "") << c.arguments;
  }
}

TEST(CliExitPaths, AnUnknownSubcommandIsNamedWithASuggestion) {
  auto r = test::run_command(kBinary + " plna " + kScenario);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("unknown subcommand 'plna'; did you mean 'plan'?") + kRunWithHelp);
  r = test::run_command(kBinary + " frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("unknown subcommand 'frobnicate'; expected one of inspect, plan", 0), 0u) << r.err;
}

TEST(CliExitPaths, ASimulatorCommandWithoutTheSimulatorSaysSo) {
#ifdef SHARDSCOPE_HAVE_SIM
  GTEST_SKIP() << "this build has the simulator";
#else
  const auto r = test::run_command(kBinary + " collective --gpus 8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("subcommand 'collective' needs the simulator, and this shardscope was built "
                               "without SimGrid") +
                       kRunWithHelp);
#endif
}

TEST(CliExitPaths, HelpAndVersionExitZeroAndEveryHelpListsTheSameCodes) {
  const std::string table =
      "Exit status:\n  0  success\n  2  bad input or usage: a scenario, plan, cluster or calibration file, "
      "an option or argument, or an output path that cannot be written (checked before any work)\n  3  no "
      "plan (or not the requested strategy, or not the given plan) fits the memory limit, or none reaches "
      "--target-tokens-per-second\n  4  the "
      "simulation or a resource "
      "failed: out of memory, an output that could not be written (disk full), or an internal error\n  130  "
      "interrupted by Ctrl-C, SIGTERM or SIGHUP; nothing was written (a sweep keeps its rows)\n";
  for (const char* arguments : {"--help", "inspect --help", "plan --help", "plan -h"}) {
    const auto r = test::run_command(kBinary + " " + arguments);
    EXPECT_EQ(r.exit_code, 0) << arguments << "\n" << r.err;
    EXPECT_EQ(r.err, "") << arguments;
    ASSERT_GE(r.out.size(), table.size()) << arguments;
    EXPECT_EQ(r.out.substr(r.out.size() - table.size()), table) << arguments;
    EXPECT_NE(r.out.find("\nUsage: shardscope "), std::string::npos) << r.out;  // not the binary's path
  }
  const auto r = test::run_command(kBinary + " --version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "shardscope 0.1.0\n");
}

TEST(CliExitPaths, AFullStandardOutputIsAnErrorWithTheReason) {
  auto r = test::run_command(kBinary + " plan --no-baselines " + kScenario + " > /dev/full");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err, "error: cannot write standard output: No space left on device\n");
  r = test::run_command(kBinary + " inspect --json " + kScenario + " > /dev/full");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err, "error: cannot write standard output: No space left on device\n");
  r = test::run_command(kBinary + " --help > /dev/full");
  EXPECT_EQ(r.exit_code, 4);
  // An error of its own keeps its code and is still reported after the output's.
  r = test::run_command(kBinary + " inspect /nonexistent-dir/s.yaml > /dev/full");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(CliExitPaths, AClosedStandardOutputIsRefusedBeforeAnyWork) {
  const auto r = test::run_command(kBinary + " plan --progress " + kScenario + " >&-");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: standard output is closed (`>&-`); nothing would be shown: redirect it to a file or to "
            "/dev/null instead\n");  // and no progress line: nothing was planned
}

TEST(CliExitPaths, AClosedStandardOutputNeverReceivesAnOutputFile) {
  // With stdout closed, a file opened by the command could take descriptor 1; the guard keeps it taken,
  // so the plan file holds the plan JSON only, untouched by the report (here refused before it is made).
  const std::string out = test::write_temp("closed-stdout.json", "earlier\n");
  const auto r = test::run_command(kBinary + " plan --no-baselines " + kScenario + " --out " + out + " >&-");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(test::read_file(out), "earlier\n");
  std::filesystem::remove(out);
}

TEST(CliExitPaths, TheOutPathIsCheckedBeforePlanning) {
  // --progress would print a line as soon as planning starts: none comes, the path is refused first.
  auto r = test::run_command(kBinary + " plan --progress " + kScenario + " --out /nonexistent-dir/x.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: --out: cannot write /nonexistent-dir/x.json: No such file or directory (no folder "
            "/nonexistent-dir)\n");
  r = test::run_command(kBinary + " plan --progress " + kScenario + " --out " +
                        std::filesystem::temp_directory_path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(": it is a directory; expected a file path\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("planning:"), std::string::npos) << r.err;
}

TEST(CliExitPaths, APlanFileThatCannotBeWrittenAfterPlanningExitsFour) {
  auto r = test::run_command(kBinary + " plan --no-baselines " + kScenario + " --out /dev/full");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err, "error: cannot write /dev/full: No space left on device\n");
  // A full disk, made by the file-size limit (in 512-byte blocks: the plan JSON is some 80 KB): the old
  // plan file is kept whole and no temporary file is left beside it.
  const std::string out = test::write_temp("too-large.json", "earlier plan\n");
  r = test::run_command("ulimit -f 16 && " + kBinary + " plan --no-baselines " + kScenario + " --out " + out);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.err, "error: cannot write " + out + ": File too large\n");
  EXPECT_EQ(test::read_file(out), "earlier plan\n");
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(out).parent_path())) {
    EXPECT_EQ(e.path().string().rfind(out + ".tmp-", 0), std::string::npos) << e.path();
  }
  // And the same command without the limit replaces it.
  r = test::run_command(kBinary + " plan --no-baselines " + kScenario + " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(out).rfind("{\n", 0), 0u);
  std::filesystem::remove(out);
}

// Out of memory: under an address-space limit between what the binary needs to start and what planning
// needs, the run says "out of memory" in words and exits 4 -- never the raw "std::bad_alloc" or a crash.
// The limits are found here (they depend on the build), not assumed. ASan cannot start under such limits.
TEST(CliExitPaths, OutOfMemoryIsAClearMessageAndExitFour) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan cannot run under a small address-space limit";
#endif
  const auto run_under = [](long kib) {
    return test::run_command("ulimit -v " + std::to_string(kib) + " && " + kBinary + " plan " + kScenario +
                             " > /dev/null");
  };
  // The smallest limit (to 1 MiB) at which planning succeeds.
  long low = 1024, high = 4L * 1024 * 1024;
  ASSERT_EQ(run_under(high).exit_code, 0);
  while (high - low > 1024) {
    const long middle = (low + high) / 2;
    (run_under(middle).exit_code == 0 ? high : low) = middle;
  }
  int out_of_memory = 0;
  for (long kib = high - 1024; kib > high / 2; kib -= 1024) {
    const auto r = run_under(kib);
    if (r.exit_code == 127) break;  // too little to load the binary's libraries at all
    EXPECT_NE(r.exit_code, 0) << kib << " KiB";
    EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << kib << " KiB: " << r.err;
    if (r.exit_code == 4 && r.err.rfind("error: out of memory: ", 0) == 0) ++out_of_memory;
    EXPECT_TRUE(r.exit_code == 4) << kib << " KiB: exit " << r.exit_code << "\n" << r.err;
  }
  EXPECT_GT(out_of_memory, 0) << "no limit between loading and finishing gave 'out of memory'";
}

}  // namespace
}  // namespace shardscope
