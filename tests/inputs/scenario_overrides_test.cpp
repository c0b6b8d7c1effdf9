// Field-path overrides (--set, --model, --cluster, --nodes, sweep axes): what they change, and errors that
// name the override and what was expected.
#include "planner/io/scenario_overrides.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;
using test::expect_usage_error;

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
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("training.memroy_limit=16GB")}); },
                     "--set training.memroy_limit=16GB", "unknown key; did you mean 'memory_limit'");
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("trainng.memory_limit=16GB")}); },
                     "--set trainng.memory_limit=16GB", "unknown key");
}

TEST(ScenarioOverrides, WrongTypeNamesTheOverrideAndWhatWasExpected) {
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("cluster.nodes=four")}); },
                     "--set cluster.nodes=four", "expected");
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("training.memory_limit=[1, 2]")}); },
                     "--set training.memory_limit=[1, 2]", "expected a single value");
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("training=5")}); }, "--set training=5",
                     "expected a mapping");
}

TEST(ScenarioOverrides, PathThroughASingleValueIsRefused) {
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("model.preset.size=2")}); },
                     "--set model.preset.size=2", "holds a single value");
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("model..preset=x")}); },
                     "--set model..preset=x", "malformed field path");
  expect_usage_error(
      [] { load_scenario_with_overrides(kDefault, {set("training.slice_granularities[9]=1")}); },
      "--set training.slice_granularities[9]=1", "past its end");
}

// Issue 30, 25: errors the user's override caused name the override, not the scenario file's line 1 or a key
// the user never wrote; and an override that would replace an earlier one is refused, not silently kept.
TEST(ScenarioOverrides, ErrorsAnOverrideCausedNameIt) {
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("cluster.gpus_per_node=4")}); },
                     "--set cluster.gpus_per_node=4",
                     "with this value, cluster.intra_node.gpus_per_switch: sockets x switches_per_socket");
  expect_usage_error([] { load_scenario_with_overrides(kDefault, {set("model.transformer.layers=2")}); },
                     "--set model.transformer.layers=2", "the model here is given by preset (nd-48x1536)");
  // A cluster file replaces the preset (it was "cluster.preset: unknown key" at the file's line).
  const Scenario filed = load_scenario_with_overrides(
      kDefault, {set("cluster.file=" + kSource + "/scenarios/clusters/dgx-a100.yaml")});
  EXPECT_EQ(filed.cluster.gpus_per_node, 8);
}

TEST(ScenarioOverrides, AnOverrideThatReplacesAnEarlierOneIsRefused) {
  expect_usage_error(
      [] {
        load_scenario_with_overrides(
            kDefault, {option_override("--nodes 4", "cluster.nodes", "4"), set("cluster=dgx-a100")});
      },
      "--set cluster=dgx-a100", "replaces what --nodes 4 gave");
  expect_usage_error(
      [] {
        load_scenario_with_overrides(kDefault,
                                     {set("training.memory_limit=8GB"), set("training.memory_limit=16GB")});
      },
      "--set training.memory_limit=16GB", "replaces what --set training.memory_limit=8GB gave");
  expect_usage_error(
      [] {
        load_scenario_with_overrides(
            "", {option_override("--model nd-48x1536", "model", "nd-48x1536"), set("model.preset=x")});
      },
      "--set model.preset=x", "replaces what --model nd-48x1536 gave");
  // A preset first, then its fields: each keeps the other.
  const Scenario both =
      load_scenario_with_overrides(kDefault, {option_override("--cluster dgx-a100", "cluster", "dgx-a100"),
                                              option_override("--nodes 2", "cluster.nodes", "2")});
  EXPECT_EQ(both.cluster.nodes, 2);
  EXPECT_TRUE(override_replaces("model.preset", "model"));
  EXPECT_TRUE(override_replaces("model", "model.transformer.layers"));
  EXPECT_FALSE(override_replaces("model.sequence_length", "model"));
  EXPECT_FALSE(override_replaces("cluster.nodes", "cluster"));
  EXPECT_FALSE(override_replaces("training.memory", "training.memory_limit"));
}

TEST(ScenarioOverrides, SetArgumentNeedsPathAndValue) {
  expect_usage_error([] { parse_set_argument("training.memory_limit"); }, "--set training.memory_limit",
                     "expected PATH=VALUE");
  expect_usage_error([] { parse_set_argument("=16GB"); }, "--set =16GB", "expected a field path");
  expect_usage_error([] { parse_set_argument("training.memory_limit="); },
                     "--set training.memory_limit=", "expected a value");
}

TEST(ScenarioOverrides, UnknownPresetsNameTheFlag) {
  expect_usage_error(
      [] {
        load_scenario_with_overrides("", {option_override("--model lama-7b", "model", "lama-7b"),
                                          option_override("--cluster dgx-a100", "cluster", "dgx-a100")});
      },
      "--model lama-7b", "did you mean 'llama-7b'");
  expect_usage_error(
      [] {
        load_scenario_with_overrides(kDefault, {option_override("--cluster dgx-a10", "cluster", "dgx-a10")});
      },
      "--cluster dgx-a10", "unknown cluster preset");
}

// The `cluster` override takes a cluster file as --cluster of `collective` does (names_cluster_file): it was
// read as a preset name ("unknown cluster preset 'scenarios/clusters/dgx-a100.yaml'").
TEST(ScenarioOverrides, ClusterTakesAPresetOrAFile) {
  const std::string file = kSource + "/scenarios/clusters/dgx-a100.yaml";
  const Scenario filed =
      load_scenario_with_overrides(kDefault, {option_override("--cluster " + file, "cluster", file)});
  const Scenario preset =
      load_scenario_with_overrides(kDefault, {option_override("--cluster dgx-a100", "cluster", "dgx-a100")});
  EXPECT_EQ(filed.cluster.gpu.name, preset.cluster.gpu.name);
  EXPECT_EQ(filed.cluster.gpus(), preset.cluster.gpus());
  // Relative to the override's folder, with the node count after it.
  const Scenario relative = load_scenario_with_overrides(
      kDefault, {{"grid.yaml:3", "cluster", "clusters/dgx-a100.yaml", kSource + "/scenarios"},
                 option_override("--nodes 2", "cluster.nodes", "2")});
  EXPECT_EQ(relative.cluster.gpus(), 16);
  EXPECT_TRUE(names_cluster_file(file));
  EXPECT_FALSE(names_cluster_file("dgx-a100"));
  EXPECT_FALSE(names_cluster_file("no/such/cluster.yaml"));
}

// An override that breaks a field of the file it did not set (the runtime reserve under a smaller GPU) is
// named, with the file's field and line: the error was the file's own ("paro-llama-7b-32gpu.yaml:6:
// training.runtime_reserve: ..."), although the file alone is fine.
TEST(ScenarioOverrides, AnErrorInTheFileAnOverrideCausedNamesIt) {
  const std::string paro = kSource + "/scenarios/paro-llama-7b-32gpu.yaml";
  expect_usage_error(
      [&] {
        load_scenario_with_overrides(paro, {set("training.group_size=8"), set("cluster.gpu.memory=1GiB")});
      },
      "--set cluster.gpu.memory=1GiB",
      "with this value, training.runtime_reserve (" + paro + ":6): the runtime reserve must be below");
  // A grid's axis is named at its place in the grid file.
  expect_input_error(
      [&] {
        load_scenario_with_overrides(paro, {{"grid.yaml:7", "cluster.gpu.memory", "1GiB", "."}});
      },
      "grid.yaml:7", 0, "cluster.gpu.memory", "with this value, training.runtime_reserve (" + paro + ":6)");
}

TEST(ScenarioOverrides, NoScenarioFileNeedsModelAndCluster) {
  expect_input_error(
      [] {
        load_scenario_with_overrides("", {option_override("--cluster dgx-a100", "cluster", "dgx-a100")});
      },
      "command line", 0, "model", "no scenario file and no model");
  expect_input_error(
      [] { load_scenario_with_overrides("", {option_override("--model llama-7b", "model", "llama-7b")}); },
      "command line", 0, "cluster", "no scenario file and no cluster");
}

}  // namespace
}  // namespace shardscope
