// Batch policy: `equal` compares every baseline at the plan's micro-batch and accumulation steps, `own` at
// each baseline's best; the product's plan is the same under both.
#include <gtest/gtest.h>

#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

Scenario titan_8gb(const std::string& extra_training) {
  return parse_scenario_string(
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 8GB, runtime_reserve: 512MiB, precision: mixed-fp16, max_micro_batch: 16" +
          extra_training + "}\n",
      "s.yaml");
}

TEST(BatchPolicy, EqualPutsEveryBaselineAtThePlansBatch) {
  const Scenario s = titan_8gb(", batch_policy: equal");
  const PlanReport report = plan_scenario(ValidScenario(s), Calibration{});
  ASSERT_TRUE(report.best.fits);
  EXPECT_EQ(report.batch_policy, BatchPolicy::equal);
  const std::int64_t b = report.best.plan.micro_batch;
  const int steps = report.best.plan.gradient_accumulation_steps;
  int fitting = 0, not_fitting = 0;
  for (const StrategyResult& r : report.baselines) {
    ASSERT_EQ(r.batches.size(), 1u) << r.strategy;
    EXPECT_EQ(r.batches.front().micro_batch, b) << r.strategy;
    EXPECT_EQ(r.batches.front().gradient_accumulation_steps, steps) << r.strategy;
    if (r.fits) {
      ++fitting;
      EXPECT_EQ(r.plan.micro_batch, b) << r.strategy;
      EXPECT_EQ(r.plan.gradient_accumulation_steps, steps) << r.strategy;
      EXPECT_LE(r.plan.predicted.samples_per_second, report.best.plan.predicted.samples_per_second)
          << r.strategy;
    } else {
      ++not_fitting;
      // The shortfall is at the plan's batch: the smallest plan there over the limit.
      EXPECT_GT(r.shortfall_bytes, 0) << r.strategy;
      EXPECT_DOUBLE_EQ(r.shortfall_bytes, r.minimum_memory_bytes - 8e9) << r.strategy;
    }
  }
  EXPECT_GT(fitting, 0);
  EXPECT_GT(not_fitting, 0);  // some baselines fit only smaller batches (zero-2, ddp, ...)
}

// A baseline at equal batch is exactly that strategy planned with the micro-batch fixed at the plan's.
TEST(BatchPolicy, EqualBaselineEqualsTheStrategyPlannedAtThatBatch) {
  const Scenario s = titan_8gb(", batch_policy: equal");
  const PlanReport report = plan_scenario(ValidScenario(s), Calibration{});
  ASSERT_TRUE(report.best.fits);
  Scenario fixed = s;
  fixed.training.micro_batch = report.best.plan.micro_batch;
  for (const StrategyResult& r : report.baselines) {
    const StrategyResult alone =
        plan_strategy(ValidScenario(fixed), Calibration{}, space_by_name(r.strategy, s.training));
    ASSERT_EQ(alone.fits, r.fits) << r.strategy;
    if (!r.fits) {
      EXPECT_EQ(alone.shortfall_bytes, r.shortfall_bytes) << r.strategy;
      continue;
    }
    EXPECT_EQ(alone.plan.predicted.iteration_seconds, r.plan.predicted.iteration_seconds) << r.strategy;
    EXPECT_EQ(alone.plan.predicted.peak_memory_bytes, r.plan.predicted.peak_memory_bytes) << r.strategy;
  }
}

TEST(BatchPolicy, OwnGivesEachBaselineItsBestBatchAndTheSamePlan) {
  const PlanReport own = plan_scenario(ValidScenario(titan_8gb(", batch_policy: own")), Calibration{});
  const PlanReport equal = plan_scenario(ValidScenario(titan_8gb(", batch_policy: equal")), Calibration{});
  ASSERT_TRUE(own.best.fits);
  EXPECT_EQ(own.batch_policy, BatchPolicy::own);
  int elsewhere = 0;
  for (const StrategyResult& r : own.baselines) {
    if (r.fits && r.plan.micro_batch != own.best.plan.micro_batch) ++elsewhere;
  }
  EXPECT_GT(elsewhere, 0);
  ASSERT_EQ(own.baselines.size(), equal.baselines.size());
  // The policy changes the comparison, not the recommendation.
  EXPECT_EQ(plan_to_json(own.best.plan).dump(), plan_to_json(equal.best.plan).dump());
  // Each baseline's own best is at least as fast as it is at the plan's batch.
  for (std::size_t i = 0; i < own.baselines.size(); ++i) {
    if (!equal.baselines[i].fits) continue;
    ASSERT_TRUE(own.baselines[i].fits) << own.baselines[i].strategy;
    EXPECT_GE(own.baselines[i].plan.predicted.samples_per_second * (1 + 1e-12),
              equal.baselines[i].plan.predicted.samples_per_second)
        << own.baselines[i].strategy;
  }
}

TEST(BatchPolicy, ReportJsonSaysWhichPolicy) {
  for (const char* policy : {"own", "equal"}) {
    const Scenario s = titan_8gb(std::string(", batch_policy: ") + policy);
    const auto json = report_to_json(plan_scenario(ValidScenario(s), Calibration{}), s);
    EXPECT_EQ(json["batch_policy"], policy);
    for (const auto& row : json["baselines"]) {
      EXPECT_GE(row["batch_size"].get<int>(), 1) << row.dump();  // a not-fitting row names where it was tried
      EXPECT_GE(row["gradient_accumulation_steps"].get<int>(), 1) << row.dump();
    }
  }
}

// With a global batch the accumulation steps follow the micro-batch: equal keeps the plan's steps.
TEST(BatchPolicy, EqualKeepsThePlansAccumulationStepsWithAGlobalBatch) {
  const Scenario s = titan_8gb(", global_batch: 96, batch_policy: equal");
  const PlanReport report = plan_scenario(ValidScenario(s), Calibration{});
  ASSERT_TRUE(report.best.fits);
  for (const StrategyResult& r : report.baselines) {
    if (!r.fits) continue;
    EXPECT_EQ(r.plan.micro_batch * r.plan.gradient_accumulation_steps * 8, 96) << r.strategy;
    EXPECT_EQ(r.plan.gradient_accumulation_steps, report.best.plan.gradient_accumulation_steps) << r.strategy;
  }
}

}  // namespace
}  // namespace shardscope
