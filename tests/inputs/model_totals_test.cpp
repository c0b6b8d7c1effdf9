// Whole-model totals that overflow 64-bit integers: legal operators that add up past 2^63 are input errors.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "planner/core/model.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kCluster = "cluster: {preset: dgx-a100}\n";

// `count` operators, each at the parser's largest activation size (1 PiB per sample).
std::string operators_at_the_largest_activation(int count) {
  std::string text = "model:\n  operators:\n";
  for (int i = 0; i < count; ++i) {
    text +=
        "    - {name: op" + std::to_string(i) + ", parameters: 1, activation_bytes_per_sample: 1024TiB}\n";
  }
  return text + kCluster;
}

TEST(ModelTotals, ManyOperatorsAtTheLargestActivationSizeAreAnInputError) {
  // 8,192 x 2^50 bytes is 2^63: one more than int64 holds. 8,191 operators still fit.
  EXPECT_EQ(parse_scenario_string(operators_at_the_largest_activation(8191), "s.yaml")
                .model.activation_bytes_per_sample(),
            std::int64_t{8191} << 50);
  expect_input_error([] { parse_scenario_string(operators_at_the_largest_activation(8200), "s.yaml"); },
                     "s.yaml", 3, "model.operators",
                     "total activation bytes per sample overflow 64-bit integers");
}

TEST(ModelTotals, ALargeMixtureOfExpertsIsAnInputError) {
  // Every field in range; each MoE operator has 4096 x 2 x 2^20 x 2^24 (about 1.4e17) parameters, 7000 of
  // them wrapped around to -5733 P parameters.
  expect_input_error(
      [] {
        parse_scenario_string(
            "model:\n  transformer: {layers: 7000, hidden: 1048576, heads: 1024, ffn_hidden: 16777216, "
            "vocab: 1000, sequence_length: 1, experts: 4096, experts_per_token: 1}\n" +
                kCluster,
            "s.yaml");
      },
      "s.yaml", 2, "model.operators", "total parameters overflow 64-bit integers");
}

TEST(ModelTotals, AModelBuiltInCodeIsCheckedAndItsSumsNeverWrap) {
  Scenario s;
  s.cluster = cluster_preset("dgx-a100");
  s.model.sequence_length = 1;
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  for (const char* name : {"a", "b"}) {
    Operator op;
    op.name = name;
    op.parameters = op.active_parameters = max / 2;  // together max - 1: fits
    s.model.operators.push_back(op);
  }
  resolve_defaults(s);
  EXPECT_TRUE(scenario_issues(s).empty());
  EXPECT_EQ(s.model.parameters(), max - 1);
  s.model.operators[1].activation_bytes_per_sample = max;
  EXPECT_EQ(s.model.activation_bytes_per_sample(), max);
  s.model.operators[0].parameters = s.model.operators[0].active_parameters = max / 2 + 2;
  EXPECT_EQ(overflowing_total(s.model), "total parameters");
  EXPECT_THROW((void)s.model.parameters(), std::overflow_error);
  EXPECT_THROW((void)s.model.trainable_parameters(), std::overflow_error);
  const std::vector<ScenarioIssue> issues = scenario_issues(s);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues.front().field, "model.operators");
  EXPECT_EQ(issues.front().message, "total parameters overflow 64-bit integers");
  expect_input_error([&] { validate_scenario(s); }, "<scenario>", 0, "model.operators", "total parameters");
}

}  // namespace
}  // namespace shardscope
