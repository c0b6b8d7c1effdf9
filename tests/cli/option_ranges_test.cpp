// CLI tests of `plan` and `inspect`: empty option values and scenarios whose sizes overflow exit 2 naming the
// option, or the file and field.
#include <gtest/gtest.h>

#include <filesystem>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

TEST(CliRanges, EmptyPathsAreBadInputNamingTheOption) {
  auto r =
      test::run_command(kBinary + " plan --no-baselines " + kSource + "/scenarios/default.yaml --out ''");
  EXPECT_EQ(r.exit_code, 2);  // was 0, writing nothing
  EXPECT_NE(r.err.find("--out: expected a file path, got an empty value"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  for (const char* command : {" plan ''", " inspect ''"}) {
    r = test::run_command(kBinary + command);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("scenario: expected a file path, got an empty value"), std::string::npos) << r.err;
  }
}

TEST(CliRanges, ModelTotalsPastSixtyFourBitsAreBadInput) {
  const std::string path = test::write_temp(
      "moe.yaml",
      "model:\n  transformer: {layers: 7000, hidden: 1048576, heads: 1024, ffn_hidden: 16777216, vocab: "
      "1000, "
      "sequence_length: 1, experts: 4096, experts_per_token: 1}\ncluster: {preset: dgx-a100}\n");
  for (const char* command : {" inspect ", " plan "}) {
    const auto r = test::run_command(kBinary + command + path);
    EXPECT_EQ(r.exit_code, 2) << command;  // inspect printed -5733.28 P parameters
    EXPECT_NE(r.err.find(path + ":2: model.operators: total parameters overflow 64-bit integers"),
              std::string::npos)
        << r.err;
  }
  std::filesystem::remove(path);
}

TEST(CliRanges, AGlobalBatchPastTheAccumulationLimitIsBadInput) {
  const std::string path =
      test::write_temp("batch.yaml",
                       "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\ntraining:\n"
                       "  global_batch: 34359738376\n");
  const auto r = test::run_command(kBinary + " plan --no-baselines " + path);
  EXPECT_EQ(r.exit_code, 2);  // planned a global batch of 8: micro-batch 1 x 1 step x 8 GPUs
  EXPECT_NE(r.err.find(path + ":4: training.global_batch: needs more than 1048576 accumulation steps"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace shardscope
