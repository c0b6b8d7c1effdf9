// Duplicate keys and second YAML documents are errors naming both lines, in every YAML and JSON input.
#include <gtest/gtest.h>

#include <algorithm>

#include "planner/core/transformer.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/hf_config.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kModel = "model: {preset: nd-48x1536}\n";
const std::string kCluster = "cluster: {preset: titan-rtx-8-pcie3}\n";

void parse(const std::string& text) { parse_scenario_string(text, "scenario.yaml"); }

TEST(DuplicateKeys, ScenarioTopLevel) {
  expect_input_error([] { parse(kModel + kCluster + "name: a\nmodel: {preset: nd-48x1536}\n"); },
                     "scenario.yaml", 4, "model", "duplicate key (first given at line 1)");
}

TEST(DuplicateKeys, ScenarioNestedSection) {
  const std::string text = "name: x\n" + kModel + kCluster +
                           "training:\n  micro_batch: 4\n  group_size: 8\n  micro_batch: 400000\n";
  try {
    parse(text);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "scenario.yaml:7: training.micro_batch: duplicate key (first given at line 5)");
  }
  expect_input_error([] { parse(kModel + "cluster:\n  preset: dgx-a100\n  nodes: 2\n  nodes: 3\n"); },
                     "scenario.yaml", 5, "cluster.nodes", "duplicate key (first given at line 4)");
  expect_input_error(
      [] {
        parse(
            "model:\n  operators:\n    - {name: a, kind: mlp, parameters: 5}\n"
            "    - name: b\n      kind: mlp\n      name: c\n" +
            kCluster);
      },
      "scenario.yaml", 6, "model.operators[1].name", "duplicate key (first given at line 4)");
}

TEST(DuplicateKeys, Calibration) {
  expect_input_error(
      [] {
        parse_calibration_string(
            "links:\n  nvlink: {alpha: 4us, bandwidth: 220GB/s}\n  nvlink: {alpha: 5us, bandwidth: 1GB/s}\n",
            "cal.yaml");
      },
      "cal.yaml", 3, "links.nvlink", "duplicate key (first given at line 2)");
}

TEST(DuplicateKeys, SecondYamlDocument) {
  expect_input_error([] { parse(kModel + kCluster + "---\n" + kModel + kCluster); }, "scenario.yaml", 3, "",
                     "a second YAML document starts here");
  expect_input_error([] { parse("---\n" + kModel + kCluster + "---\n"); }, "scenario.yaml", 4, "",
                     "a second YAML document starts here");
  expect_input_error([] { parse_calibration_string("overlap_slowdown: 0.2\n---\n", "cal.yaml"); }, "cal.yaml",
                     2, "", "a second YAML document starts here");
}

// `text` with a copy of the line that holds `needle` inserted before it (given a trailing comma).
std::string duplicate_line(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  const std::size_t start = text.rfind('\n', at) + 1;
  std::string line = text.substr(start, text.find('\n', at) - start);
  if (line.back() != ',') line += ',';
  return text.substr(0, start) + line + "\n" + text.substr(start);
}

int line_of(const std::string& text, const std::string& needle) {
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<long>(text.find(needle)), '\n'));
}

TEST(DuplicateKeys, PlanJson) {
  TransformerSpec spec;
  spec.layers = 1;
  spec.hidden = 64;
  spec.heads = 4;
  spec.vocab = 100;
  spec.sequence_length = 16;
  const Model model = generate_transformer(spec);
  Plan plan;
  plan.strategy = "test";
  plan.micro_batch = 3;
  plan.group_size = 4;
  plan.sequence_length_tokens = 16;
  for (const Operator& op : model.operators)
    plan.operators.push_back({op.name, {ShardScope::I, ShardScope::G, ShardScope::G}, false, 4, 3, true});
  const std::string text = plan_to_json(plan).dump(2);
  const int batch = line_of(text, "\"batch_size\"");
  expect_input_error([&] { plan_from_json_string(duplicate_line(text, "\"batch_size\""), "p.json", model); },
                     "p.json", batch + 1, "batch_size",
                     "duplicate key (first given at line " + std::to_string(batch) + ")");
  const int checkpoint = line_of(text, "\"checkpoint\"");
  expect_input_error([&] { plan_from_json_string(duplicate_line(text, "\"checkpoint\""), "p.json", model); },
                     "p.json", checkpoint + 1, "operators[0].checkpoint",
                     "duplicate key (first given at line " + std::to_string(checkpoint) + ")");
}

TEST(DuplicateKeys, HfConfigJson) {
  const std::string text =
      "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,\n"
      " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 100,\n"
      " \"max_position_embeddings\": 64,\n \"hidden_size\": 4096}";
  expect_input_error([&] { parse_hf_config_string(text, "c.json"); }, "c.json", 4, "hidden_size",
                     "duplicate key (first given at line 1)");
}

}  // namespace
}  // namespace shardscope
