// Each command's --help states the defaults the code uses: the expected texts come from the constants the
// options start from and from the scenario parser's defaults, never from copies of their values.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "apps/shardscope/command_defaults.hpp"
#include "apps/shardscope/sweep_options.hpp"
#include "planner/core/scenario.hpp"
#include "planner/io/scenario_parser.hpp"
#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

// `shardscope COMMAND --help` with its lines joined and runs of spaces collapsed (CLI11 wraps descriptions).
std::string help_text(const std::string& command) {
  const auto r = test::run_command(kBinary + " " + command + " --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string out;
  for (const char c : r.out) {
    const char d = c == '\n' ? ' ' : c;
    if (d == ' ' && !out.empty() && out.back() == ' ') continue;
    out += d;
  }
  return out;
}

std::string whole(double seconds) { return std::to_string(static_cast<int>(seconds)); }

// Issue 29: `plan --help` said the batch policy defaults to equal; the scenario parser (and TrainingConfig)
// make it own.
TEST(HelpDefaults, PlanSaysTheScenarioDefaultsTheParserUses) {
  // The default scenario sets neither training.batch_policy nor execution.collectives.
  const Scenario parsed = load_scenario_file(kSource + "/scenarios/default.yaml");
  EXPECT_EQ(parsed.training.batch_policy, TrainingConfig{}.batch_policy);
  EXPECT_EQ(parsed.execution.collectives, ExecutionOptions{}.collectives);
  const std::string help = help_text("plan");
  EXPECT_NE(help.find("default: the scenario's training.batch_policy, else " +
                      std::string(to_string(parsed.training.batch_policy))),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("default: the scenario's execution.collectives, else " +
                      std::string(to_string(parsed.execution.collectives))),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("(default " + whole(cli::kDefaultRefineTimeoutSeconds) + ")"), std::string::npos)
      << help;
}

TEST(HelpDefaults, CompareAndSweepSayTheirTimeouts) {
  const std::string compare = help_text("compare");
  EXPECT_NE(compare.find("may take (default " + whole(cli::kDefaultCompareSimTimeoutSeconds) + ")"),
            std::string::npos)
      << compare;
  EXPECT_EQ(cli::SweepOptions{}.timeout_seconds, cli::kDefaultPointTimeoutSeconds);
  const std::string sweep = help_text("sweep");
  EXPECT_NE(sweep.find("as an error (default " + whole(cli::kDefaultPointTimeoutSeconds) + ")"),
            std::string::npos)
      << sweep;
}

}  // namespace
}  // namespace shardscope
