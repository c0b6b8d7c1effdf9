// `plan --batch-policy`, `--micro-batch` and (without the simulator) `--refine`: what they change, and the
// usage errors they give (exit 2 naming the option).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kDefault = kSource + "/scenarios/default.yaml";

nlohmann::json plan_json(const std::string& arguments) {
  const auto r = test::run_command(kBinary + " plan --json " + arguments);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(PlanOptions, BatchPolicyOptionOverridesTheScenario) {
  const nlohmann::json own = plan_json("--batch-policy own " + kDefault);
  const nlohmann::json equal = plan_json("--batch-policy equal " + kDefault);
  EXPECT_EQ(own["batch_policy"], "own");
  EXPECT_EQ(equal["batch_policy"], "equal");
  EXPECT_EQ(own["plan"], equal["plan"]);  // the recommendation does not depend on the policy
  const auto b = equal["plan"]["batch_size"];
  int elsewhere = 0;
  for (const auto& row : equal["baselines"]) EXPECT_EQ(row["batch_size"], b) << row.dump();
  for (const auto& row : own["baselines"]) elsewhere += row["fits"] && row["batch_size"] != b ? 1 : 0;
  EXPECT_GT(elsewhere, 0);
}

TEST(PlanOptions, TextSaysWhichPolicy) {
  auto r = test::run_command(kBinary + " plan --batch-policy own " + kDefault);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("each at its own best micro-batch (batch policy own;"), std::string::npos) << r.out;
  r = test::run_command(kBinary + " plan --batch-policy equal " + kDefault);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("at the plan's micro-batch 6 x 1 steps (batch policy equal;"), std::string::npos)
      << r.out;
  // The default is own.
  EXPECT_EQ(test::run_command(kBinary + " plan " + kDefault).out,
            test::run_command(kBinary + " plan --batch-policy own " + kDefault).out);
}

TEST(PlanOptions, MicroBatchFixesThePlanAndTheBaselines) {
  const nlohmann::json report = plan_json("--micro-batch 3 " + kDefault);
  EXPECT_EQ(report["plan"]["batch_size"], 3);
  ASSERT_EQ(report["batch_sizes"].size(), 1u);
  for (const auto& row : report["baselines"]) EXPECT_EQ(row["batch_size"], 3) << row.dump();
}

TEST(PlanOptions, BadValuesAreUsageErrors) {
  auto r = test::run_command(kBinary + " plan --batch-policy same " + kDefault);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--batch-policy"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " plan --micro-batch 0 " + kDefault);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--micro-batch"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " plan --refine -1 " + kDefault);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--refine"), std::string::npos) << r.err;
}

// A micro-batch the scenario's global batch cannot reach is blamed on the option.
TEST(PlanOptions, MicroBatchThatConflictsWithTheGlobalBatchNamesTheOption) {
  const std::string path = test::write_temp(
      "global.yaml",
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\ntraining: {global_batch: 64}\n");
  const auto r = test::run_command(kBinary + " plan --micro-batch 3 " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: --micro-batch: 3 conflicts with the scenario: training.global_batch"),
            std::string::npos)
      << r.err;
}

// With a global batch, --micro-batch sets the accumulation steps that reach it.
TEST(PlanOptions, MicroBatchWithAGlobalBatchDerivesTheSteps) {
  const std::string path = test::write_temp(
      "global2.yaml",
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\ntraining: {global_batch: 64}\n");
  const nlohmann::json report = plan_json("--micro-batch 2 --batch-policy equal " + path);
  EXPECT_EQ(report["plan"]["batch_size"], 2);
  EXPECT_EQ(report["plan"]["gradient_accumulation_steps"], 4);
  for (const auto& row : report["baselines"]) EXPECT_EQ(row["gradient_accumulation_steps"], 4) << row.dump();
}

#ifndef SHARDSCOPE_HAVE_SIM
TEST(PlanOptions, RefineWithoutTheSimulatorIsAUsageError) {
  const auto r = test::run_command(kBinary + " plan --refine 2 " + kDefault);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--refine: needs the simulator, and this shardscope was built without SimGrid"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  // --refine 0 is off and plans as usual.
  EXPECT_EQ(test::run_command(kBinary + " plan --refine 0 --no-baselines " + kDefault).exit_code, 0);
}
#endif

}  // namespace
}  // namespace shardscope
