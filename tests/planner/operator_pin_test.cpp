// Pins: a pinned operator takes only what its pin admits, and the plan is optimal among plans with the pin.
#include "planner/search/operator_pin.hpp"

#include <gtest/gtest.h>

#include <string>

#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// Five linear operators (200 M parameters each, 3.2 GB of states replicated) on 16 GPUs under 12 GB: some
// must be sharded, and replicating one costs memory that others then pay for.
Scenario five_operators() {
  std::string ops;
  for (int i = 0; i < 5; ++i) {
    ops += "    - {name: op" + std::to_string(i) +
           ", kind: linear, parameters: 200000000, forward_flops_per_sample: " + std::to_string(1 + i) +
           ".0e11}\n";
  }
  return parse_scenario_string(
      "model:\n  operators:\n" + ops +
          "cluster: {preset: dgx-a100, nodes: 2}\n"
          "training: {precision: mixed-fp16, memory_limit: 12GB, runtime_reserve: 1GiB, "
          "slice_granularities: [1, 2], max_micro_batch: 4}\n",
      "five.yaml");
}

TEST(OperatorPin, AdmitsWhatItNames) {
  const OperatorChoice dp{"x", Scopes{ShardScope::N, ShardScope::N, ShardScope::N}, false, 1, 0, false};
  const OperatorChoice zdp{"x", Scopes{ShardScope::G, ShardScope::G, ShardScope::G}, false, 2, 2, true};
  const OperatorChoice half{"x", Scopes{ShardScope::G, ShardScope::G, ShardScope::G}, false, 2, 1, false};
  EXPECT_TRUE(dp_pin(0).admits(dp));
  EXPECT_FALSE(dp_pin(0).admits(zdp));
  EXPECT_TRUE(zdp_pin(0).admits(zdp));
  EXPECT_FALSE(zdp_pin(0).admits(half));
  EXPECT_FALSE(zdp_pin(0).admits(dp));
  OperatorPin slices;
  slices.slices = 2;
  slices.sharded_slices = 1;
  EXPECT_TRUE(slices.admits(half));
  EXPECT_FALSE(slices.admits(zdp));
  OperatorPin ckpt;
  ckpt.checkpoint = true;
  EXPECT_TRUE(ckpt.admits(zdp));
  EXPECT_FALSE(ckpt.admits(dp));
  EXPECT_EQ(zdp_pin(3).describe("op3"), "op3: ZDP (GGG, all slices)");
}

// For each operator and each of DP and ZDP: the pinned plan honours the pin, and its search objective is the
// brute-forced optimum over the pinned instance (every combination), within the search's certified gap.
TEST(OperatorPin, PinnedPlanHonoursThePinAndIsOptimalAmongPinnedPlans) {
  const Scenario s = five_operators();
  const PlanReport free_report = plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{false, 0, {}});
  ASSERT_TRUE(free_report.best.fits);
  int differs = 0;
  for (std::size_t op = 0; op < s.model.operators.size(); ++op) {
    for (const OperatorPin& pin : {dp_pin(op), zdp_pin(op)}) {
      SCOPED_TRACE(pin.describe(s.model.operators[op].name));
      PlanRequest request{false, 0, {pin}};
      const PlanReport report = plan_scenario(ValidScenario(s), Calibration{}, request);
      ASSERT_TRUE(report.best.fits);
      EXPECT_TRUE(pin.admits(report.best.plan.operators[op]));
      if (!pin.admits(free_report.best.plan.operators[op])) ++differs;
      // The pinned space at the plan's batch, solved by enumeration.
      SearchSpace space = full_space(s.training);
      space.pins = {pin};
      const PlanInstance inst = build_instance(
          ValidScenario(s), Calibration{}, space,
          TrainingStep{report.best.plan.micro_batch, report.best.plan.gradient_accumulation_steps});
      for (const OperatorChoice& c : inst.choices[op]) EXPECT_TRUE(pin.admits(c));
      const McSolution brute = solve_brute_force(inst.problem);
      ASSERT_TRUE(brute.feasible);
      EXPECT_LE(report.best.lower_bound_seconds, brute.seconds * (1 + 1e-12));
      EXPECT_GE(report.best.search_seconds, brute.seconds * (1 - 1e-12));
      EXPECT_LE(report.best.search_seconds - brute.seconds,
                report.best.search_seconds - report.best.lower_bound_seconds + 1e-12);
      // A pin can only cost throughput.
      EXPECT_LE(report.best.plan.predicted.samples_per_second,
                free_report.best.plan.predicted.samples_per_second * (1 + 1e-9));
    }
  }
  EXPECT_GT(differs, 0);  // some pin forces a choice the free plan did not make
}

TEST(OperatorPin, APinNoChoiceMeetsIsAnInputError) {
  const Scenario s = five_operators();
  OperatorPin pin;
  pin.operator_index = 2;
  pin.slices = 3;  // the space has granularities 1 and 2 only
  try {
    plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{false, 0, {pin}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("op2: 3 slices"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shardscope
