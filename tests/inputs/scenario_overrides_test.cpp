// Field-path overrides (--set, --model, --cluster, --nodes, sweep axes): what they change, and errors that
// name the override and what was expected.
#include "planner/io/scenario_overrides.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kDefault = kSource + "/scenarios/default.yaml";

ScenarioOverride set(const std::string& text) { return parse_set_argument(text); }

TEST(ScenarioOverrides, SetChangesTheNamedFieldOnly) {
  const Scenario plain = load_scenario_file(kDefault);
  const Scenario changed = load_scenario_with_overrides(kDefault, {set("training.memory_limit=16GB")});
  EXPECT_EQ(plain.training.memory_limit_bytes, 8'000'000'000);
  EXPECT_EQ(changed.training.memory_limit_bytes, 16'000'000'000);
  EXPECT_EQ(changed.model.operators.size(), plain.model.operators.size());
  EXPECT_NE(scenario_digest(plain), scenario_digest(changed));
  // No overrides: the same scenario as the file.
  EXPECT_EQ(scenario_digest(load_scenario_with_overrides(kDefault, {})), scenario_digest(plain));
}

TEST(ScenarioOverrides, ListValuesAndNewSections) {
  const Scenario s = load_scenario_with_overrides(
      kDefault, {set("training.slice_granularities=[1, 2]"), set("execution.prefetch_depth=2")});
  EXPECT_EQ(s.training.slice_granularities, (std::vector<int>{1, 2}));
  EXPECT_EQ(s.execution.prefetch_depth, 2);
}

TEST(ScenarioOverrides, ModelClusterAndNodesWithoutAScenarioFile) {
  const std::vector<ScenarioOverride> overrides = {
      {"--model", "model", kSource + "/scenarios/hf/llama-2-7b.json", "."},
      {"--cluster", "cluster", "dgx-a100", "."},
      {"--nodes", "cluster.nodes", "4", "."}};
  const Scenario s = load_scenario_with_overrides("", overrides);
  EXPECT_EQ(s.cluster.nodes, 4);
  EXPECT_EQ(s.cluster.gpus(), 32);
  EXPECT_GT(s.model.parameters(), 6'000'000'000);
  EXPECT_EQ(s.name, s.model.name + " on " + s.cluster.name);
}

TEST(ScenarioOverrides, ModelReplacesTheSourceAndKeepsTheSequenceLength) {
  const Scenario s = load_scenario_with_overrides(kDefault, {{"--model", "model", "nd-64x1536", "."}});
  EXPECT_EQ(s.model.name, "nd-64x1536");
  EXPECT_EQ(s.cluster.name, load_scenario_file(kDefault).cluster.name);
  // The same preset by its field path gives the same scenario.
  EXPECT_EQ(scenario_digest(s),
            scenario_digest(load_scenario_with_overrides(kDefault, {set("model.preset=nd-64x1536")})));
}

TEST(ScenarioOverrides, RelativeModelPathsFollowTheOverridesFolder) {
  // The config.json is relative to the override's folder, not to the scenario file's.
  const Scenario s = load_scenario_with_overrides(
      kDefault, {{"--model", "model", "hf/llama-2-7b.json", kSource + "/scenarios"}});
  EXPECT_GT(s.model.parameters(), 6'000'000'000);
}

TEST(ScenarioOverrides, UnknownPathNamesTheOverride) {
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("training.memroy_limit=16GB")}); },
                     "--set", 0, "training.memroy_limit", "unknown key; did you mean 'memory_limit'");
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("trainng.memory_limit=16GB")}); },
                     "--set", 0, "trainng", "unknown key");
}

TEST(ScenarioOverrides, WrongTypeNamesTheOverrideAndWhatWasExpected) {
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("cluster.nodes=four")}); }, "--set", 0,
                     "cluster.nodes", "expected");
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("training.memory_limit=[1, 2]")}); },
                     "--set", 0, "training.memory_limit", "expected a single value");
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("training=5")}); }, "--set", 0,
                     "training", "expected a mapping");
}

TEST(ScenarioOverrides, PathThroughASingleValueIsRefused) {
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("model.preset.size=2")}); }, "--set", 0,
                     "model.preset.size", "holds a single value");
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("model..preset=x")}); }, "--set", 0,
                     "model..preset", "malformed field path");
  expect_input_error(
      [] { load_scenario_with_overrides(kDefault, {set("training.slice_granularities[9]=1")}); }, "--set", 0,
      "training.slice_granularities[9]", "past its end");
}

// Issue 30, 25: errors the user's override caused name the override, not the scenario file's line 1 or a key
// the user never wrote; and an override that would replace an earlier one is refused, not silently kept.
TEST(ScenarioOverrides, ErrorsAnOverrideCausedNameIt) {
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("cluster.gpus_per_node=4")}); },
                     "--set", 0, "cluster.gpus_per_node",
                     "with this value, cluster.intra_node.gpus_per_switch: sockets x switches_per_socket");
  expect_input_error([] { load_scenario_with_overrides(kDefault, {set("model.transformer.layers=2")}); },
                     "--set", 0, "model.transformer.layers",
                     "the model here is given by preset (nd-48x1536)");
  // A cluster file replaces the preset (it was "cluster.preset: unknown key" at the file's line).
  const Scenario filed = load_scenario_with_overrides(
      kDefault, {set("cluster.file=" + kSource + "/scenarios/clusters/dgx-a100.yaml")});
  EXPECT_EQ(filed.cluster.gpus_per_node, 8);
}

TEST(ScenarioOverrides, AnOverrideThatReplacesAnEarlierOneIsRefused) {
  expect_input_error(
      [] {
        load_scenario_with_overrides(kDefault,
                                     {{"--nodes", "cluster.nodes", "4", "."}, set("cluster=dgx-a100")});
      },
      "--set", 0, "cluster", "replaces what --nodes gave");
  expect_input_error(
      [] {
        load_scenario_with_overrides(kDefault,
                                     {set("training.memory_limit=8GB"), set("training.memory_limit=16GB")});
      },
      "--set", 0, "training.memory_limit", "replaces what --set training.memory_limit=8GB gave");
  expect_input_error(
      [] {
        load_scenario_with_overrides("", {{"--model", "model", "nd-48x1536", "."}, set("model.preset=x")});
      },
      "--set", 0, "model.preset", "replaces what --model gave");
  // A preset first, then its fields: each keeps the other.
  const Scenario both = load_scenario_with_overrides(
      kDefault, {{"--cluster", "cluster", "dgx-a100", "."}, {"--nodes", "cluster.nodes", "2", "."}});
  EXPECT_EQ(both.cluster.nodes, 2);
  EXPECT_TRUE(override_replaces("model.preset", "model"));
  EXPECT_TRUE(override_replaces("model", "model.transformer.layers"));
  EXPECT_FALSE(override_replaces("model.sequence_length", "model"));
  EXPECT_FALSE(override_replaces("cluster.nodes", "cluster"));
  EXPECT_FALSE(override_replaces("training.memory", "training.memory_limit"));
}

TEST(ScenarioOverrides, SetArgumentNeedsPathAndValue) {
  expect_input_error([] { parse_set_argument("training.memory_limit"); }, "--set", 0, "",
                     "expected PATH=VALUE");
  expect_input_error([] { parse_set_argument("=16GB"); }, "--set", 0, "", "expected a field path");
  expect_input_error([] { parse_set_argument("training.memory_limit="); }, "--set", 0,
                     "training.memory_limit", "expected a value");
}

TEST(ScenarioOverrides, UnknownPresetsNameTheFlag) {
  expect_input_error(
      [] {
        load_scenario_with_overrides(
            "", {{"--model", "model", "lama-7b", "."}, {"--cluster", "cluster", "dgx-a100", "."}});
      },
      "--model", 0, "model.preset", "did you mean 'llama-7b'");
  expect_input_error(
      [] {
        load_scenario_with_overrides(kDefault, {{"--cluster", "cluster", "dgx-a10", "."}});
      },
      "--cluster", 0, "cluster.preset", "unknown cluster preset");
}

TEST(ScenarioOverrides, NoScenarioFileNeedsModelAndCluster) {
  expect_input_error(
      [] {
        load_scenario_with_overrides("", {{"--cluster", "cluster", "dgx-a100", "."}});
      },
      "command line", 0, "model", "no scenario file and no model");
  expect_input_error(
      [] {
        load_scenario_with_overrides("", {{"--model", "model", "llama-7b", "."}});
      },
      "command line", 0, "cluster", "no scenario file and no cluster");
}

}  // namespace
}  // namespace shardscope
