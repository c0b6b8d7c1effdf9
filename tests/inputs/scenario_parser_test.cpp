// Tests of scenario parsing: every model source, cluster overrides, training fields and shipped scenarios.
#include "planner/io/scenario_parser.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.hpp"

namespace shardscope {
namespace {

TEST(ScenarioParser, DefaultScenarioLoads) {
  const Scenario s = load_scenario_file(test::source_dir() + "/scenarios/default.yaml");
  EXPECT_EQ(s.name, "default");
  EXPECT_EQ(s.model.operators.size(), 98u);
  EXPECT_EQ(s.cluster.gpus(), 8);
  EXPECT_EQ(s.training.memory_limit_bytes, 8000000000);
  EXPECT_EQ(s.training.group_size, 8);
}

TEST(ScenarioParser, EveryShippedScenarioLoads) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(load_scenario_file(entry.path().string())) << entry.path();
    ++count;
  }
  EXPECT_GE(count, 1);
}

TEST(ScenarioParser, HfConfigPathIsRelativeToTheScenario) {
  const std::string text =
      "model: {hf_config: hf/llama-2-7b.json, sequence_length: 2048}\ncluster: {preset: dgx-a100}\n";
  const Scenario s = parse_scenario_string(text, "x.yaml", test::source_dir() + "/scenarios");
  EXPECT_EQ(s.model.parameters(), 6738415616);
  EXPECT_EQ(s.model.sequence_length, 2048);
}

TEST(ScenarioParser, ClusterPresetWithOverrides) {
  const std::string text =
      "model: {preset: llama-7b}\n"
      "cluster:\n  preset: dgx-a100\n  nodes: 4\n  gpu: {memory: 40GiB}\n"
      "training: {memory_limit: 16GB, group_size: 8, micro_batch: 2, gradient_accumulation_steps: 4, "
      "global_batch: 256}\n";
  const Scenario s = parse_scenario_string(text);
  EXPECT_EQ(s.cluster.gpus(), 32);
  EXPECT_EQ(s.cluster.gpu.memory_bytes, 40LL << 30);
  EXPECT_EQ(s.cluster.gpu.name, "A100-SXM4-80GB");  // untouched fields come from the preset
  EXPECT_EQ(s.training.global_batch, 256);
}

TEST(ScenarioParser, ExplicitOperatorsWithPaperCosts) {
  const std::string text =
      "model:\n  sequence_length: 512\n  operators:\n"
      "    - {name: a, kind: mlp, parameters: 1000, forward_flops_per_sample: 2.0e6,\n"
      "       paper: {gamma: 1ms, parameter_bytes: 2000, model_bytes: 16000, activation_bytes: 100, "
      "extra_bytes: 10}}\n"
      "    - {name: b, parameters: 10, activation_bytes_per_sample: 1KiB}\n"
      "cluster: {preset: titan-rtx-8-pcie3}\n"
      "planner: {cost_model: paper, paper: {alpha: 10us, beta: 10GB/s}}\n";
  const Scenario s = parse_scenario_string(text);
  ASSERT_EQ(s.model.operators.size(), 2u);
  const Operator& a = s.model.operators[0];
  EXPECT_DOUBLE_EQ(a.backward_flops_per_sample, 4.0e6);
  EXPECT_TRUE(a.paper.given);
  EXPECT_DOUBLE_EQ(a.paper.gamma_seconds_per_sample, 1e-3);
  EXPECT_DOUBLE_EQ(a.paper.model_bytes, 16000);
  EXPECT_EQ(s.model.operators[1].activation_bytes_per_sample, 1024);
  EXPECT_EQ(s.planner.cost_model, CostModelKind::paper);
  EXPECT_DOUBLE_EQ(s.planner.paper.alpha_seconds, 1e-5);
  EXPECT_DOUBLE_EQ(s.planner.paper.beta_seconds_per_byte, 1e-10);
}

TEST(ScenarioParser, InlineTransformerWithStages) {
  const std::string text =
      "model:\n  transformer:\n    stages: [{layers: 2, hidden: 1024}, {layers: 1, hidden: 2048}]\n"
      "    heads: 16\n    vocab: 1000\n    sequence_length: 128\n"
      "cluster: {preset: titan-rtx-8-pcie3}\n";
  const Scenario s = parse_scenario_string(text);
  EXPECT_EQ(s.model.operators.size(), 8u);
}

}  // namespace
}  // namespace shardscope
