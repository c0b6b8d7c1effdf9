// The documented maximum of gradient accumulation steps (kMaxAccumulationSteps = 2^20): checked, never
// truncated.
#include <gtest/gtest.h>

#include <algorithm>

#include "planner/core/scenario_check.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "tests/inputs/test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kHead = "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\ntraining:\n";

bool has_issue(const Scenario& s, const std::string& field, const std::string& needle) {
  const std::vector<ScenarioIssue> issues = scenario_issues(s);
  return std::any_of(issues.begin(), issues.end(), [&](const ScenarioIssue& i) {
    return i.field == field && i.message.find(needle) != std::string::npos;
  });
}

TEST(AccumulationLimit, AGlobalBatchThatNeedsTooManyStepsIsAnInputError) {
  // 8 GPUs: 2^32 + 1 = 641 x 6700417 samples per GPU. The steps used to be cut to int: micro-batch 1 x 1
  // step, a global batch of 8.
  expect_input_error(
      [] { parse_scenario_string(kHead + "  global_batch: 34359738376\n", "s.yaml"); }, "s.yaml", 4,
      "training.global_batch",
      "needs more than 1048576 accumulation steps (the most supported) at every micro-batch from 1 "
      "to max_micro_batch (1024) that divides its 4294967297 samples per GPU");
  // 2^21 samples per GPU: micro-batch 2 needs 2^20 steps, so a scan up to 2 may keep it, a scan up to 1 not.
  EXPECT_NO_THROW(parse_scenario_string(kHead + "  global_batch: 16777216\n  max_micro_batch: 2\n"));
  expect_input_error(
      [] { parse_scenario_string(kHead + "  global_batch: 16777216\n  max_micro_batch: 1\n", "s.yaml"); },
      "s.yaml", 4, "training.global_batch", "needs more than 1048576 accumulation steps");
}

TEST(AccumulationLimit, StepCountsAreNeverTruncated) {
  Scenario s = parse_scenario_string(kHead + "  max_micro_batch: 8\n");
  s.training.global_batch = 8 * ((std::int64_t{1} << 32) + 1);  // set past validation
  EXPECT_EQ(accumulation_steps_for(s, 1), 0);                   // was 1: 2^32 + 1 cut to int
  s.training.global_batch = std::int64_t{8} << 21;
  EXPECT_EQ(accumulation_steps_for(s, 1), 0);  // 2^21 steps: more than supported, out of the scan
  EXPECT_EQ(accumulation_steps_for(s, 2), 1 << 20);
  EXPECT_EQ(accumulation_steps_for(s, 8), 1 << 18);
  EXPECT_EQ(accumulation_steps_for(s, 3), 0);  // does not divide
}

TEST(AccumulationLimit, ScenariosBuiltInCodeAreCheckedToo) {
  Scenario s = parse_scenario_string(kHead + "  max_micro_batch: 8\n");
  s.training.gradient_accumulation_steps = kMaxAccumulationSteps;
  EXPECT_TRUE(scenario_issues(s).empty());
  s.training.gradient_accumulation_steps = kMaxAccumulationSteps + 1;
  EXPECT_TRUE(has_issue(s, "training.gradient_accumulation_steps", "expected 1 to 1048576 steps"));
  // micro_batch x steps x GPUs past 2^63 is a mismatch, not a wrapped product.
  s.training.gradient_accumulation_steps = kMaxAccumulationSteps;
  s.training.micro_batch = 1 << 20;
  s.cluster.nodes = 1 << 21;
  s.training.global_batch = 1 << 20;
  EXPECT_TRUE(has_issue(s, "cluster.nodes", "nodes x gpus_per_node exceeds 1048576 GPUs"));
  EXPECT_TRUE(has_issue(s, "training.global_batch", "(beyond 64-bit integers)"));
}

}  // namespace
}  // namespace shardscope
