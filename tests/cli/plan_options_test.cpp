// `plan --batch-policy`, `--micro-batch` and (without the simulator) `--refine`: what they change, and the
// usage errors they give (exit 2 naming the option).
#include <gtest/gtest.h>

#include <cmath>
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

// Issue 36, item 2: --tokens gives each fitting strategy's iterations, wall time and GPU-hours, and
// --price-per-gpu-hour its cost, from the same predictions the report prints (text and JSON).
TEST(PlanOptions, TokensAndPriceGiveTimeToTrainAndCost) {
  const nlohmann::json j = plan_json("--tokens 300B --price-per-gpu-hour 2.5 " + kDefault);
  const nlohmann::json& t = j.at("time_to_train");
  EXPECT_EQ(t.at("tokens"), 300e9);
  EXPECT_EQ(t.at("price_per_gpu_hour"), 2.5);
  EXPECT_EQ(t.at("gpus"), 8);
  ASSERT_GE(t.at("strategies").size(), 2u);
  const nlohmann::json& plan = t.at("strategies").at(0);
  EXPECT_EQ(plan.at("strategy"), "plan (" + j.at("plan").at("strategy").get<std::string>() + ")");
  const double iteration = j.at("plan").at("predicted").at("iteration_seconds").get<double>();
  const double batch = j.at("plan").at("batch_size").get<double>() *
                       j.at("plan").at("gradient_accumulation_steps").get<double>() * 8 *
                       j.at("plan").at("sequence_length_tokens").get<double>();
  EXPECT_EQ(plan.at("tokens_per_iteration"), batch);
  EXPECT_EQ(plan.at("iterations"), std::ceil(300e9 / batch));
  EXPECT_DOUBLE_EQ(plan.at("seconds").get<double>(), std::ceil(300e9 / batch) * iteration);
  EXPECT_DOUBLE_EQ(plan.at("cost").get<double>(), plan.at("gpu_hours").get<double>() * 2.5);
  for (const auto& row : t.at("strategies")) EXPECT_GT(row.at("seconds").get<double>(), 0) << row;
  const auto text = test::run_command(kBinary + " plan --tokens 300B " + kDefault);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("Time to train on 300.00 B tokens, 8 GPUs (whole iterations at the predicted rate)"),
      std::string::npos)
      << text.out;
  EXPECT_FALSE(plan_json(kDefault).contains("time_to_train"));  // only when asked
}

TEST(PlanOptions, BadTokensOrAPriceAloneExitTwoNamingTheFlag) {
  const std::pair<std::string, std::string> cases[] = {
      {"--tokens 0", "error: --tokens: expected from 1 to 1e18 tokens, got '0'"},
      {"--tokens 3X",
       "error: --tokens: unknown unit 'X' in '3X'; expected a count such as 15T, 300B or 1e12"},
      {"--tokens 1e30", "error: --tokens: expected from 1 to 1e18 tokens, got '1e30'"},
      {"--tokens ''", "--tokens: expected a token count such as 300B, got an empty value"},
      {"--price-per-gpu-hour 2",
       "error: --price-per-gpu-hour: prices a training run, so it needs --tokens N"},
      {"--tokens 1T --price-per-gpu-hour -1", "--price-per-gpu-hour: Value -1 not in range"},
      {"--tokens 1T --price-per-gpu-hour nan",
       "error: --price-per-gpu-hour: expected a price from 0 to 1e9, got nan"},
  };
  for (const auto& [arguments, message] : cases) {
    const auto r = test::run_command(kBinary + " plan " + kDefault + " " + arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << arguments << ": " << r.err;
  }
}

}  // namespace
}  // namespace shardscope
