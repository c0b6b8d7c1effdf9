// Baselines under `checkpointing: search`: one sharding for the whole model, checkpointing chosen per
// operator (as PyTorch's checkpoint wrapper and DeepSpeed let a user wrap any module), found exactly by the
// search.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "planner/core/error.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

constexpr ShardScope G = ShardScope::G;

// Two layers at one micro-batch, and a memory limit between FSDP checkpointing every operator and none.
Scenario tight(const std::string& limit, const std::string& checkpointing = "search") {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 2, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-a100}\ntraining: {micro_batch: 4, precision: mixed-bf16, memory_limit: " +
          limit + ", checkpointing: " + checkpointing + "}\n",
      "s.yaml");
}

// FSDP's plan for the scenario with operator i checkpointed where bit i of `mask` is set.
Plan fsdp_plan(const ValidScenario& valid, unsigned mask) {
  Plan plan = plan_strategy(valid, Calibration{}, space_by_name("fsdp", valid.training)).plan;
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    EXPECT_EQ(plan.operators[i].scopes.parameters, G);
    plan.operators[i].checkpoint = ((mask >> i) & 1) != 0;
  }
  return plan;
}

// Its iteration, priced whole; infinity when it does not fit.
double fsdp_seconds(const ValidScenario& valid, unsigned mask) {
  try {
    return evaluate_plan(valid, Calibration{}, fsdp_plan(valid, mask)).iteration_seconds;
  } catch (const PlanDoesNotFit&) {
    return std::numeric_limits<double>::infinity();
  }
}

TEST(BaselineCheckpointing, FsdpUnderSearchCheckpointsPerOperatorAsBruteForceDoes) {
  // A limit halfway between FSDP's peak checkpointing every operator and its peak checkpointing none.
  const ValidScenario roomy(tight("80GB"));
  const std::size_t n = roomy.model.operators.size();
  ASSERT_EQ(n, 6u);
  const unsigned all = (1u << n) - 1;
  const double every_peak = evaluate_plan(roomy, Calibration{}, fsdp_plan(roomy, all)).peak_memory_bytes;
  const double none_peak = evaluate_plan(roomy, Calibration{}, fsdp_plan(roomy, 0)).peak_memory_bytes;
  ASSERT_LT(every_peak, none_peak);
  const Scenario s = tight(std::to_string(std::llround((every_peak + none_peak) / 2)) + "B");
  const ValidScenario valid(s);
  EXPECT_TRUE(std::isinf(fsdp_seconds(valid, 0)));
  ASSERT_FALSE(std::isinf(fsdp_seconds(valid, all)));

  double best = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask <= all; ++mask) best = std::min(best, fsdp_seconds(valid, mask));
  const StrategyResult fsdp = plan_strategy(valid, Calibration{}, space_by_name("fsdp", s.training));
  ASSERT_TRUE(fsdp.fits);
  int checkpointed = 0;
  for (const OperatorChoice& c : fsdp.plan.operators) {
    EXPECT_EQ(c.scopes.parameters, G);
    EXPECT_EQ(c.scopes.gradients, G);
    EXPECT_EQ(c.scopes.optimizer, G);
    EXPECT_EQ(c.slices, 1);
    checkpointed += c.checkpoint ? 1 : 0;
  }
  EXPECT_GT(checkpointed, 0);
  EXPECT_LT(checkpointed, static_cast<int>(n));  // neither all nor nothing: the limit is between them
  EXPECT_NEAR(fsdp.plan.predicted.iteration_seconds, best, 1e-9 * best);
  EXPECT_LT(best, fsdp_seconds(valid, all));  // faster than the all-or-nothing choice it had before
}

// Under a policy with one value (none, all, selective, layers) a whole-model space stays uniform.
TEST(BaselineCheckpointing, OtherPoliciesKeepWholeModelSpacesUniform) {
  for (const std::string policy : {"none", "all", "selective", "layers"}) {
    const Scenario s = tight("80GB", policy);
    EXPECT_TRUE(space_by_name("fsdp", s.training).uniform) << policy;
    EXPECT_TRUE(space_by_name("ddp", s.training).uniform) << policy;
  }
  const Scenario s = tight("80GB");
  EXPECT_FALSE(space_by_name("fsdp", s.training).uniform);
  EXPECT_FALSE(space_by_name("zero++", s.training).uniform);
}

}  // namespace
}  // namespace shardscope
