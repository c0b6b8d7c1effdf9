// Checkpointing every k-th layer (torchtitan's selective layer option): which operators, the block's kept
// bytes under a framework's runtime, the plan check and the refusals.
#include <gtest/gtest.h>

#include <string>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

Scenario every(const std::string& k, const std::string& runtime = "fsdp2") {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 4, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-h100}\ntraining: {micro_batch: 2, checkpointing: layers" +
          k + "}\nexecution: {runtime: " + runtime + "}\n",
      "s.yaml");
}

// torchtitan counts the blocks it wraps from 1 and checkpoints every k-th: layers 1 and 3 (from 0) for k = 2,
// layer 2 for k = 3; embedding and head never. Every strategy's space follows it, the baselines' too.
TEST(LayerCheckpointing, EveryKthLayerCountedFromOneIsCheckpointed) {
  for (const auto& [k, checkpointed] : {std::pair<std::string, std::vector<int>>{"", {1, 3}},
                                        {", checkpoint_every: 3", {2}},
                                        {", checkpoint_every: 1", {0, 1, 2, 3}}}) {
    const Scenario s = every(k);
    for (const std::string strategy : {"shardscope", "fsdp", "ddp", "osdp"}) {
      const SearchSpace space = space_by_name(strategy, s.training);
      for (const Operator& op : s.model.operators) {
        const bool expected =
            std::find(checkpointed.begin(), checkpointed.end(), op.layer) != checkpointed.end();
        for (const OperatorChoice& c : enumerate_choices(space, op))
          EXPECT_EQ(c.checkpoint, expected) << strategy << " " << op.name << k;
      }
    }
  }
}

// A checkpointed layer is a checkpointed block under a framework's runtime: its attention keeps the
// block's input, its MLP nothing; a layer not checkpointed keeps everything.
TEST(LayerCheckpointing, ACheckpointedLayerKeepsOnlyItsBlocksInput) {
  const Scenario s = every("");
  const TopologyCostModel model(ValidScenario(s), Calibration{});
  for (std::size_t i = 0; i < s.model.operators.size(); ++i) {
    const Operator& op = s.model.operators[i];
    OperatorChoice c{op.name, {ShardScope::G, ShardScope::G, ShardScope::G}, false, 1, 1, false};
    c.checkpoint = checkpoint_options(CheckpointPolicy::layers, op, 2).front();
    double expected = static_cast<double>(op.activation_bytes_per_sample);
    if (c.checkpoint)
      expected = op.kind == OperatorKind::mlp ? 0.0 : static_cast<double>(op.checkpoint_bytes_per_sample);
    EXPECT_EQ(model.kept_bytes_per_sample(i, c), expected) << op.name;
  }
}

TEST(LayerCheckpointing, ThePlanIsCheckedAndTheStepIsInTheDigest) {
  const Scenario s = every("");
  const StrategyResult r = plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training));
  ASSERT_TRUE(r.fits);
  EXPECT_TRUE(check_plan_configuration(r.plan, s, Calibration{}).empty());
  Plan wrong = r.plan;
  wrong.operators[1].checkpoint = !wrong.operators[1].checkpoint;  // layer0.attention
  EXPECT_THROW((void)check_plan_configuration(wrong, s, Calibration{}), InputError);
  EXPECT_NE(scenario_digest(every("")), scenario_digest(every(", checkpoint_every: 3")));
  // Under another policy the step is not read, and not in the digest.
  Scenario all = every("");
  all.training.checkpointing = CheckpointPolicy::all;
  Scenario all_three = all;
  all_three.training.checkpoint_every = 3;
  EXPECT_EQ(scenario_digest(all), scenario_digest(all_three));
}

TEST(LayerCheckpointing, AStepBelowOneNamesTheLine) {
  try {
    every(", checkpoint_every: 0");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.field(), "training.checkpoint_every");
  }
}

// A scenario built in code reaches validation without the parser's range check.
TEST(LayerCheckpointing, ACodeBuiltStepBelowOneIsRefusedByValidation) {
  Scenario s = every("");
  s.training.checkpoint_every = 0;
  try {
    const ValidScenario valid(s);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("training.checkpoint_every: expected a layer count of at least 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shardscope
