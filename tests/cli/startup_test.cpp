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
#endif

TEST(Startup, PlanAndInspectRun) {
  EXPECT_EQ(test::run_command(kBinary + " inspect " + kScenario).exit_code, 0);
  EXPECT_EQ(test::run_command(kBinary + " --version").exit_code, 0);
}

}  // namespace
}  // namespace shardscope
