// One test per bad-input class: each must raise an InputError naming file, line and field — never crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const char* kCluster = "cluster: {preset: titan-rtx-8-pcie3}\n";

void parse(const std::string& text) { parse_scenario_string(text, "s.yaml"); }

TEST(ScenarioErrors, MissingField) {
  expect_input_error([] { parse("model: {preset: nd-48x1536}\n"); }, "s.yaml", 1, "cluster", "missing");
  expect_input_error(
      [] { parse(std::string("model:\n  operators:\n    - {kind: mlp, parameters: 5}\n") + kCluster); },
      "s.yaml", 3, "model.operators[0].name", "required");
}

TEST(ScenarioErrors, WrongType) {
  expect_input_error(
      [] {
        parse(std::string("model: {preset: nd-48x1536}\n") + kCluster + "training:\n  micro_batch: four\n");
      },
      "s.yaml", 4, "training.micro_batch", "expected an integer, got 'four'");
  expect_input_error([] { parse(std::string("model: [1, 2]\n") + kCluster); }, "s.yaml", 1, "model",
                     "expected a mapping");
}

TEST(ScenarioErrors, ZeroNegativeAndAbsurdSizes) {
  expect_input_error([] { parse("model: {preset: nd-48x1536}\ncluster:\n  preset: dgx-a100\n  nodes: 0\n"); },
                     "s.yaml", 4, "cluster.nodes", "between 1 and 100000");
  expect_input_error(
      [] {
        parse(
            "model: {preset: nd-48x1536}\ncluster:\n  preset: dgx-a100\n  nodes: "
            "1000000000000000000000000000000\n");
      },
      "s.yaml", 4, "cluster.nodes", "out of range");
  expect_input_error(
      [] {
        parse(std::string("model: {preset: nd-48x1536}\n") + kCluster + "training: {memory_limit: -8GB}\n");
      },
      "s.yaml", 3, "training.memory_limit", "that is not negative, got '-8GB'");
  expect_input_error(
      [] {
        parse(std::string("model: {preset: nd-48x1536}\n") + kCluster + "training: {memory_limit: 48GB}\n");
      },
      "s.yaml", 3, "training.memory_limit", "between");
  expect_input_error(
      [] {
        parse(
            "model:\n  transformer: {layers: 2, hidden: 99999999, heads: 1, vocab: 10, sequence_length: "
            "8}\n" +
            std::string(kCluster));
      },
      "s.yaml", 2, "model.transformer.hidden", "between 1 and 1048576");
}

TEST(ScenarioErrors, GroupSizeMustDivideGpus) {
  expect_input_error(
      [] { parse(std::string("model: {preset: nd-48x1536}\n") + kCluster + "training: {group_size: 3}\n"); },
      "s.yaml", 3, "training.group_size", "does not divide the 8 GPUs");
}

TEST(ScenarioErrors, ReserveAboveLimit) {
  expect_input_error(
      [] {
        parse(std::string("model: {preset: nd-48x1536}\n") + kCluster +
              "training: {memory_limit: 8GB, runtime_reserve: 9GB}\n");
      },
      "s.yaml", 3, "training.runtime_reserve", "below the memory limit");
}

TEST(ScenarioErrors, UnknownPresets) {
  expect_input_error([] { parse(std::string("model: {preset: gpt-7}\n") + kCluster); }, "s.yaml", 1,
                     "model.preset", "unknown model preset 'gpt-7'");
  expect_input_error([] { parse("model: {preset: nd-48x1536}\ncluster: {preset: tpu-v5}\n"); }, "s.yaml", 2,
                     "cluster.preset", "unknown cluster preset 'tpu-v5'");
}

TEST(ScenarioErrors, UnknownKeyIsATypo) {
  expect_input_error(
      [] {
        parse(std::string("model: {preset: nd-48x1536}\n") + kCluster + "training:\n  micro_bacth: 4\n");
      },
      "s.yaml", 4, "training.micro_bacth", "unknown key");
}

TEST(ScenarioErrors, UnknownModelTypeInHfConfig) {
  const auto dir = std::filesystem::temp_directory_path() / "shardscope_hf_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << "{\n  \"model_type\": \"bert\"\n}\n";
  const std::string text = std::string("model: {hf_config: config.json}\n") + kCluster;
  expect_input_error([&] { parse_scenario_string(text, "s.yaml", dir.string()); },
                     (dir / "config.json").string(), 2, "model_type", "unsupported model_type 'bert'");
}

TEST(ScenarioErrors, MalformedYaml) {
  expect_input_error([] { parse("model: {preset: nd-48x1536\ncluster: [\n"); }, "s.yaml", -1, "",
                     "malformed YAML");
  expect_input_error([] { parse("model:\n  preset: a\n   bad: indent\n"); }, "s.yaml", -1, "",
                     "malformed YAML");
}

TEST(ScenarioErrors, EmptyFile) {
  expect_input_error([] { parse(""); }, "s.yaml", 0, "", "file is empty");
  expect_input_error([] { parse("# only a comment\n"); }, "s.yaml", 0, "", "file is empty");
}

TEST(ScenarioErrors, NotAMapping) {
  expect_input_error([] { parse("- just\n- a list\n"); }, "s.yaml", 1, "", "expected a YAML mapping");
}

TEST(ScenarioErrors, DirectoryAndMissingFile) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  expect_input_error([&] { load_scenario_file(dir); }, dir, 0, "", "is a directory");
  expect_input_error([] { load_scenario_file("/nonexistent/scenario.yaml"); }, "/nonexistent/scenario.yaml",
                     0, "", "no such file");
}

TEST(ScenarioErrors, BinaryGarbage) {
  std::string garbage;
  for (int i = 0; i < 512; ++i) garbage.push_back(static_cast<char>((i * 37 + 11) % 256));
  EXPECT_THROW(parse(garbage), InputError);
  expect_input_error([] { parse(std::string("model: \0\x01\x02", 10)); }, "s.yaml", 0, "", "NUL bytes");
}

TEST(ScenarioErrors, DeepNestingAndAliasesDoNotCrash) {
  std::string deep = "model: ";
  for (int i = 0; i < 5000; ++i) deep += "[";
  EXPECT_THROW(parse(deep), InputError);
  const std::string aliases =
      "a: &a [1, 2]\nb: &b [*a, *a]\nc: &c [*b, *b]\nmodel: *c\n" + std::string(kCluster);
  EXPECT_THROW(parse(aliases), InputError);
}

}  // namespace
}  // namespace shardscope
