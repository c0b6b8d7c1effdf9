// The scenario's training.batch_policy: parsed, defaulted to own, and a bad value named at its line.
#include <gtest/gtest.h>

#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

const std::string kBase = "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n";

TEST(BatchPolicyParse, DefaultsToOwn) {
  EXPECT_EQ(parse_scenario_string(kBase, "s.yaml").training.batch_policy, BatchPolicy::own);
}

TEST(BatchPolicyParse, ReadsOwnAndEqual) {
  EXPECT_EQ(parse_scenario_string(kBase + "training: {batch_policy: own}\n", "s.yaml").training.batch_policy,
            BatchPolicy::own);
  EXPECT_EQ(
      parse_scenario_string(kBase + "training: {batch_policy: equal}\n", "s.yaml").training.batch_policy,
      BatchPolicy::equal);
}

TEST(BatchPolicyParse, BadValueNamesTheFieldAndSuggests) {
  test::expect_input_error(
      [] { parse_scenario_string(kBase + "training:\n  batch_policy: eqaul\n", "s.yaml"); }, "s.yaml", 4,
      "training.batch_policy", "expected one of own, equal, got 'eqaul'; did you mean 'equal'?");
  test::expect_input_error([] { parse_scenario_string(kBase + "training:\n  batch_policy: 3\n", "s.yaml"); },
                           "s.yaml", 4, "training.batch_policy", "expected one of own, equal, got '3'");
}

}  // namespace
}  // namespace shardscope
