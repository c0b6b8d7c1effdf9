// The scenario's execution.collectives: parsed, defaulted to auto, and a bad value named at its line.
#include <gtest/gtest.h>

#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

const std::string kBase = "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n";

TEST(CollectivesParse, DefaultsToAuto) {
  EXPECT_EQ(parse_scenario_string(kBase, "s.yaml").execution.collectives, CollectivesChoice::automatic);
}

TEST(CollectivesParse, ReadsAutoRingAndNccl) {
  const auto read = [](const std::string& value) {
    return parse_scenario_string(kBase + "execution: {collectives: " + value + "}\n", "s.yaml")
        .execution.collectives;
  };
  EXPECT_EQ(read("auto"), CollectivesChoice::automatic);
  EXPECT_EQ(read("ring"), CollectivesChoice::ring);
  EXPECT_EQ(read("nccl"), CollectivesChoice::nccl);
}

TEST(CollectivesParse, BadValueNamesTheFieldAndSuggests) {
  test::expect_input_error(
      [] { parse_scenario_string(kBase + "execution:\n  overlap: true\n  collectives: ncl\n", "s.yaml"); },
      "s.yaml", 5, "execution.collectives",
      "expected one of auto, ring, nccl, got 'ncl'; did you mean 'nccl'?");
  test::expect_input_error(
      [] { parse_scenario_string(kBase + "execution:\n  collectives: [ring]\n", "s.yaml"); }, "s.yaml", 4,
      "execution.collectives", "expected a single value, got a list or mapping");
}

}  // namespace
}  // namespace shardscope
