// The remaining parser error paths: model sources, stages, batches, planner options, files, cluster files.
#include <gtest/gtest.h>

#include "planner/io/cluster_presets.hpp"
#include "planner/io/hf_config.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kCluster = "cluster: {preset: titan-rtx-8-pcie3}\n";

void parse(const std::string& text) { parse_scenario_string(text, "s.yaml"); }

TEST(ScenarioMoreErrors, ExactlyOneModelSource) {
  expect_input_error([] { parse("model: {preset: nd-48x1536, hf_config: x.json}\n" + kCluster); }, "s.yaml",
                     1, "model.preset", "give exactly one of preset, hf_config, transformer or operators");
  expect_input_error([] { parse("model: {name: x}\n" + kCluster); }, "s.yaml", 1, "model.preset",
                     "give exactly one");
}

TEST(ScenarioMoreErrors, DuplicateOperatorNameAndFlashOnAnExplicitList) {
  expect_input_error(
      [] {
        parse("model:\n  operators:\n    - {name: a, parameters: 1}\n    - {name: a, parameters: 2}\n" +
              kCluster);
      },
      "s.yaml", 4, "model.operators[1].name", "duplicate operator name 'a'");
  expect_input_error(
      [] {
        parse("model:\n  flash_attention: true\n  operators:\n    - {name: a, parameters: 1}\n" + kCluster);
      },
      "s.yaml", 2, "model.flash_attention", "only applies to generated models");
}

TEST(ScenarioMoreErrors, StagesAndWidths) {
  expect_input_error(
      [] {
        parse(
            "model:\n  transformer: {hidden: 64, stages: [{layers: 1, hidden: 64}], heads: 4, vocab: 10, "
            "sequence_length: 8}\n" +
            kCluster);
      },
      "s.yaml", 2, "model.transformer.hidden", "give exactly one of hidden, layer_hidden or stages");
  expect_input_error(
      [] {
        parse(
            "model:\n  transformer: {layers: 3, stages: [{layers: 1, hidden: 64}], heads: 4, vocab: 10, "
            "sequence_length: 8}\n" +
            kCluster);
      },
      "s.yaml", 2, "model.transformer.layers", "does not match the sum of the stages' layers (1)");
  expect_input_error(
      [] {
        parse(
            "model:\n  transformer: {layers: 3, layer_hidden: [64, 64], heads: 4, vocab: 10, "
            "sequence_length: 8}\n" +
            kCluster);
      },
      "s.yaml", 2, "model.transformer.layer_hidden", "lists 2 sizes but layers is 3");
  expect_input_error(
      [] {
        parse("model:\n  transformer: {layer_hidden: [64, x], heads: 4, vocab: 10, sequence_length: 8}\n" +
              kCluster);
      },
      "s.yaml", 2, "model.transformer.layer_hidden[1]", "expected an integer, got 'x'");
  expect_input_error(
      [] {
        parse("model:\n  transformer: {layers: 2, hidden: 100, heads: 3, vocab: 10, sequence_length: 8}\n" +
              kCluster);
      },
      "s.yaml", 2, "model.transformer", "must be a multiple of heads");
}

TEST(ScenarioMoreErrors, GlobalBatchMustAddUp) {
  expect_input_error(
      [] {
        parse("model: {preset: nd-48x1536}\n" + kCluster + "training: {global_batch: 100, micro_batch: 2}\n");
      },
      "s.yaml", 3, "training.global_batch",
      "must equal micro_batch x gradient_accumulation_steps x GPUs (16)");
  expect_input_error(
      [] { parse("model: {preset: nd-48x1536}\n" + kCluster + "training: {global_batch: 12}\n"); }, "s.yaml",
      3, "training.global_batch", "must be a multiple of the number of GPUs (8)");
  expect_input_error(
      [] { parse("model: {preset: nd-48x1536}\n" + kCluster + "training: {precision: fp8}\n"); }, "s.yaml", 3,
      "training.precision", "expected one of fp32, mixed-bf16, mixed-fp16, got 'fp8'");
}

TEST(ScenarioMoreErrors, PlannerOptions) {
  const std::string head = "model: {preset: nd-48x1536}\n" + kCluster;
  expect_input_error([&] { parse(head + "planner: {cost_model: paper}\n"); }, "s.yaml", 3, "planner.paper",
                     "cost_model: paper needs paper: {alpha, beta}");
  expect_input_error([&] { parse(head + "planner:\n  paper: {alpha: 1us}\n"); }, "s.yaml", 4,
                     "planner.paper.beta", "give exactly one of beta");
  expect_input_error(
      [&] { parse(head + "planner:\n  paper: {alpha: 1us, beta: 1GB/s, beta_seconds_per_byte: 1e-9}\n"); },
      "s.yaml", 4, "planner.paper.beta", "give exactly one of beta");
  expect_input_error([&] { parse(head + "execution: {prefetch_depth: 99}\n"); }, "s.yaml", 3,
                     "execution.prefetch_depth", "between 0 and 64");
  expect_input_error([&] { parse(head + "execution: {bucket: lots}\n"); }, "s.yaml", 3, "execution.bucket",
                     "expected a byte size");
  expect_input_error([&] { parse(head + "planner: {overlap: true}\n"); }, "s.yaml", 3, "planner.overlap",
                     "moved to the execution: section (execution.overlap)");
}

TEST(ScenarioMoreErrors, ClusterFilesAndNames) {
  expect_input_error([] { load_cluster("no-such-cluster"); }, "no-such-cluster", 0, "cluster",
                     "neither a cluster file nor a known preset");
  const std::string text = "model: {preset: nd-48x1536}\ncluster: {file: clusters/dgx-a100.yaml, nodes: 2}\n";
  const Scenario s = parse_scenario_string(text, "s.yaml", test::source_dir() + "/scenarios");
  EXPECT_EQ(s.cluster.gpus(), 16);
  expect_input_error(
      [] {
        parse(
            "model: {preset: nd-48x1536}\ncluster:\n  preset: titan-rtx-8-pcie3\n  intra_node: "
            "{gpus_per_switch: 3}\n");
      },
      "s.yaml", 4, "cluster.intra_node.gpus_per_switch", "must equal gpus_per_node (8)");
  expect_input_error(
      [] {
        parse("model: {preset: nd-48x1536}\ncluster:\n  preset: dgx-a100\n  nodes: 2\n  network: null\n");
      },
      "s.yaml", 5, "cluster.network", "needs a network section");
}

TEST(ScenarioMoreErrors, NotARegularFile) {
  expect_input_error([] { read_text_file("/dev/null", "scenario"); }, "/dev/null", 0, "",
                     "is not a regular file");
}

TEST(ScenarioMoreErrors, PostNormOptIsRefused) {
  const std::string text =
      "{\"model_type\": \"opt\", \"hidden_size\": 64, \"ffn_dim\": 128, \"num_hidden_layers\": 2,\n"
      "\"num_attention_heads\": 4, \"vocab_size\": 100, \"max_position_embeddings\": 64,\n"
      "\"do_layer_norm_before\": false}";
  expect_input_error([&] { parse_hf_config_string(text, "opt.json"); }, "opt.json", 3, "do_layer_norm_before",
                     "post-norm OPT layout");
}

}  // namespace
}  // namespace shardscope
