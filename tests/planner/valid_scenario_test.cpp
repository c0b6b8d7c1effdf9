// ValidScenario: the one check at the boundary names the file and field; what it hands out outlives it.
#include "planner/core/valid_scenario.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/transformer.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/transformer_parser.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

Scenario small_scenario() {
  Scenario s;
  s.source_file = "small.yaml";
  s.model = generate_transformer(model_preset("nd-48x1536", "test", 0, "model.preset"));
  s.cluster = cluster_preset("titan-rtx-8-pcie3");
  s.training.max_micro_batch = 8;
  resolve_defaults(s);
  return s;
}

TEST(ValidScenario, AnInvalidScenarioIsRefusedWithItsFileAndField) {
  Scenario s = small_scenario();
  s.training.group_size = 3;  // does not divide the 8 GPUs
  try {
    const ValidScenario valid(s);
    FAIL() << "a group size of 3 on 8 GPUs was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "small.yaml");
    EXPECT_EQ(e.field(), "training.group_size");
  }
}

TEST(ValidScenario, ReadsAsTheScenarioItChecked) {
  const Scenario s = small_scenario();
  const ValidScenario valid(s);
  EXPECT_EQ(valid.model.operators.size(), s.model.operators.size());
  EXPECT_EQ(valid.cluster.gpus(), 8);
  EXPECT_EQ(valid.training.group_size, s.training.group_size);
  EXPECT_EQ(&valid.scenario().training, &valid.training);
  const ValidScenario copy = valid;  // shares the one scenario
  EXPECT_EQ(&copy.model, &valid.model);
}

TEST(ValidScenario, ItsOperatorsOutliveIt) {
  std::shared_ptr<const std::vector<Operator>> operators;
  std::size_t count = 0;
  {
    const ValidScenario valid(small_scenario());
    count = valid.model.operators.size();
    operators = valid.operators();
  }
  ASSERT_EQ(operators->size(), count);
  EXPECT_FALSE(operators->front().name.empty());
}

// A cost model owns what it reads: built from a scenario that is gone, it prices as one whose scenario lives.
TEST(ValidScenario, ACostModelOutlivesTheScenarioItWasMadeFrom) {
  const ValidScenario kept(small_scenario());
  const std::unique_ptr<CostModel> reference = make_cost_model(kept, Calibration{});
  std::unique_ptr<CostModel> orphan;
  { orphan = make_cost_model(ValidScenario(small_scenario()), Calibration{}); }
  const SearchSpace space = space_by_name("fsdp", kept.training);
  const OperatorChoice choice{kept.model.operators[1].name, space.scopes.front(), false, 1, 1, false};
  EXPECT_EQ(orphan->cost(1, choice, 2).seconds, reference->cost(1, choice, 2).seconds);
  EXPECT_EQ(orphan->memory(1, choice, 2).resident(), reference->memory(1, choice, 2).resident());
  EXPECT_EQ(orphan->fixed_bytes(), reference->fixed_bytes());
}

// The options a model is made with are its own: two models of one scenario price each their own way.
TEST(ValidScenario, CostModelOptionsAreFixedAtConstruction) {
  const ValidScenario valid(small_scenario());
  const TopologyCostModel one_step(valid, Calibration{}, {.accumulation_steps = 1});
  const TopologyCostModel four_steps(valid, Calibration{}, {.accumulation_steps = 4});
  EXPECT_EQ(four_steps.samples_per_iteration(2), 4 * one_step.samples_per_iteration(2));
  const TopologyCostModel scenario_steps(valid, Calibration{});
  EXPECT_EQ(scenario_steps.samples_per_iteration(2),
            2.0 * valid.training.gradient_accumulation_steps * valid.cluster.gpus());
}

}  // namespace
}  // namespace shardscope
