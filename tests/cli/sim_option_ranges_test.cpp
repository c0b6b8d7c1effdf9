// CLI tests of `collective` and `simulate` options: a negative count or an empty value exits 2 naming the
// option and its range (the scenario and cluster files' ranges), before anything is simulated.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

struct BadOption {
  std::string arguments;  // after the subcommand's required arguments
  std::string message;    // expected on stderr
};

void expect_bad_options(const std::string& command, const std::vector<BadOption>& cases) {
  for (const BadOption& c : cases) {
    const auto r = test::run_command(kBinary + command + " " + c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.out;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.arguments << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.arguments;
  }
}

TEST(SimCliRanges, CollectiveCountsOutOfRange) {
  // --gpus -8 and --group-size -4 used to run on the whole cluster with the default groups, exit 0.
  expect_bad_options(" collective --cluster dgx-a100 --bytes 1MiB",
                     {{"--gpus -8", "--gpus: Value -8 not in range 1 to 1048576"},
                      {"--gpus 0", "--gpus: Value 0 not in range 1 to 1048576"},
                      {"--group-size -4", "--group-size: Value -4 not in range 1 to 1048576"},
                      {"--concurrent -1", "--concurrent: Value -1 not in range 1 to 64"}});
  expect_bad_options(" collective --bytes 1MiB",
                     {{"--cluster ''", "--cluster: expected a cluster preset or file, got an empty value"}});
}

TEST(SimCliRanges, SimulateEmptyValuesAndNegativeCounts) {
  // The empty paths used to be ignored (exit 0, nothing written); --bucket '' meant the scenario's bucket.
  expect_bad_options(
      " simulate " + kSource + "/scenarios/default.yaml",
      {{"--strategy ''", "--strategy: unknown strategy ''"},
       {"--plan ''", "--plan: expected a plan file path, got an empty value"},
       {"--trace ''", "--trace: expected a file path, got an empty value"},
       {"--links ''", "--links: expected a file path, got an empty value"},
       {"--result-json ''", "--result-json: expected a file path, got an empty value"},
       {"--bucket ''", "--bucket: expected a byte size from 0 to 1TiB such as 25MB or 1024, got ''"},
       {"--bucket -1MB", "--bucket: expected a byte size from 0 to 1TiB such as 25MB or 1024, got '-1MB'"},
       {"--bucket 2TiB", "--bucket: expected a byte size from 0 to 1TiB"},
       {"--trace-ranks -1", "--trace-ranks: expected N (the first N ranks), all, nodes:K"},
       {"--coarse-above -1", "--coarse-above: Value -1 not in range 0 to 1073741824"}});
}

}  // namespace
}  // namespace shardscope
