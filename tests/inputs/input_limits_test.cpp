// Input limits (docs/scenarios.md, "Limits"): file size and node count are refused before a tree is built,
// large legal inputs still parse, and the duplicate operator-name check is linear.
#include "planner/io/input_limits.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "planner/io/calibration_parser.hpp"
#include "planner/io/hf_config.hpp"
#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kHead = "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n";

// `count` operators named op0, op1, ... (the last one named `last` when given), each with `fields`.
std::string operator_list(std::size_t count, const std::string& fields, const std::string& last = "") {
  std::string text = "model:\n  name: many\n  operators:\n";
  for (std::size_t i = 0; i < count; ++i) {
    const std::string name = i + 1 == count && !last.empty() ? last : "op" + std::to_string(i);
    text += "    - {name: " + name + fields + "}\n";
  }
  return text + "cluster: {preset: titan-rtx-8-pcie3}\n";
}

TEST(InputLimits, AYamlListPastTheNodeLimitIsRefusedBeforeItsTreeIsBuilt) {
  // A list of a million and ten items in a key the scenario does not know: yaml-cpp's tree would take about
  // 500 MB, and the unknown key was only noticed after building it.
  std::string text = kHead + "ignored:\n";
  for (std::size_t i = 0; i < kMaxInputNodes + 10; ++i) text += "- 1\n";
  // Nodes before the list: the root, model (key + mapping + preset key + value), cluster (the same) and
  // the `ignored` key and list: 11; so the item past the limit is item 999,990, on line 4 + 999,989.
  expect_input_error(
      [&] { parse_scenario_string(text, "big.yaml"); }, "big.yaml", 999993, "ignored",
      "more than 1000000 YAML nodes (keys, values and list items), the limit for an input file");
}

TEST(InputLimits, ACalibrationFileHasTheSameNodeLimit) {
  std::string text = "notes: [";
  for (std::size_t i = 0; i < kMaxInputNodes; ++i) text += "1,";
  text += "1]\n";
  expect_input_error([&] { parse_calibration_string(text, "cal.yaml"); }, "cal.yaml", 1, "notes",
                     "more than 1000000 YAML nodes");
}

TEST(InputLimits, AJsonFilePastTheValueLimitIsRefusedWhileParsing) {
  // A Hugging Face config with a list of a million and one numbers in a key it does not use.
  std::string text =
      R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 2, "vocab_size": 100, "extra": [)";
  for (std::size_t i = 0; i < kMaxInputNodes; ++i) text += "0,";
  text += "0]}";
  expect_input_error(
      [&] { parse_hf_config_string(text, "config.json", 128); }, "config.json", 0, "",
      "more than 1000000 JSON values (objects, lists and their members), the limit for an input "
      "file");
}

TEST(InputLimits, AFileOverTheSizeLimitIsNotRead) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("shardscope_big_" + std::to_string(::getpid()) + ".yaml");
  { std::ofstream(path) << kHead; }
  std::filesystem::resize_file(path, kMaxInputFileBytes + 1);  // sparse: takes no disk space
  expect_input_error([&] { load_scenario_file(path.string()); }, path.string(), 0, "",
                     "scenario file is larger than 32 MiB (33554433 bytes), the limit for an input file");
  std::filesystem::remove(path);
}

TEST(InputLimits, TwentyThousandFullyDescribedOperatorsParse) {
  const std::string fields =
      ", kind: mlp, layer: 1, parameters: 1000, dtype: bf16, forward_flops_per_sample: 1e6, "
      "backward_flops_per_sample: 2e6, activation_bytes_per_sample: 1KB, checkpoint_bytes_per_sample: 1KB, "
      "workspace_bytes_per_sample: 1KB, splittable: true, trainable: true";
  const Scenario s = parse_scenario_string(operator_list(20000, fields));
  ASSERT_EQ(s.model.operators.size(), 20000u);
  EXPECT_EQ(s.model.operators.back().name, "op19999");
  EXPECT_EQ(s.model.operators.back().workspace_bytes_per_sample, 1000);
}

TEST(InputLimits, DuplicateNamesInALongListAreFound) {
  // 100,000 operators, the last repeating the first name: the pairwise check took about a minute here
  // (140,000 took 91 s), a hash set takes milliseconds.
  const std::size_t n = 100000;
  expect_input_error([&] { parse_scenario_string(operator_list(n, ", parameters: 1", "op0"), "s.yaml"); },
                     "s.yaml", static_cast<int>(n) + 3, "model.operators[99999].name",
                     "duplicate operator name 'op0'");
}

}  // namespace
}  // namespace shardscope
