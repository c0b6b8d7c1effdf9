// Sweep-ready startup: `shardscope` itself does not link SimGrid (plan and inspect start without loading it
// and ns-3), and the simulator's commands still run, through shardscope-sim beside it.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kScenario = std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios/default.yaml";

#ifdef SHARDSCOPE_HAVE_SIM
TEST(Startup, ShardscopeDoesNotLinkSimgrid) {
  std::ifstream file(kBinary, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.find("libsimgrid"), std::string::npos);
  EXPECT_EQ(bytes.find("libns3"), std::string::npos);
}

TEST(Startup, SimulatorCommandsStillRunAndAreListed) {
  const auto help = test::run_command(kBinary + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("simulate"), std::string::npos);
  EXPECT_NE(help.out.find("collective"), std::string::npos);
  const auto simulate_help = test::run_command(kBinary + " simulate --help");
  EXPECT_EQ(simulate_help.exit_code, 0);
  EXPECT_NE(simulate_help.out.find("--strategy"), std::string::npos);
  const auto typo = test::run_command(kBinary + " simulat " + kScenario);
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("did you mean 'simulate'"), std::string::npos) << typo.err;
  const auto collective =
      test::run_command(kBinary + " collective --cluster titan-rtx-8-pcie3 --bytes 1MB --json");
  EXPECT_EQ(collective.exit_code, 0) << collective.err;
  EXPECT_NE(collective.out.find("busbw_gbps"), std::string::npos) << collective.out;
}

// A shardscope copied away from its shardscope-sim: the simulator's commands end with exit 4 and a message
// naming the missing executable, while plan still runs (it does not need the simulator).
TEST(Startup, MissingSimulatorExitsFourWithItsPath) {
  const std::string dir = ::testing::TempDir() + "shardscope-alone";
  ASSERT_EQ(
      test::run_command("rm -rf " + dir + " && mkdir -p " + dir + " && cp " + kBinary + " " + dir).exit_code,
      0);
  const std::string alone = dir + "/shardscope";
  const auto simulate = test::run_command(alone + " simulate " + kScenario);
  EXPECT_EQ(simulate.exit_code, 4) << simulate.err;
  EXPECT_NE(simulate.err.find("error: the simulator's commands run " + dir +
                              "/shardscope-sim, which could not be "
                              "started: No such file or directory"),
            std::string::npos)
      << simulate.err;
  const auto refine = test::run_command(alone + " plan --refine 2 " + kScenario);
  EXPECT_EQ(refine.exit_code, 4) << refine.err;
  EXPECT_EQ(test::run_command(alone + " plan --no-baselines " + kScenario).exit_code, 0);
}
#endif

TEST(Startup, PlanAndInspectRun) {
  EXPECT_EQ(test::run_command(kBinary + " inspect " + kScenario).exit_code, 0);
  EXPECT_EQ(test::run_command(kBinary + " --version").exit_code, 0);
}

}  // namespace
}  // namespace shardscope
