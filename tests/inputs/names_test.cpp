// Tests of the name tables and suggestions: every enum's table round-trips, edit distance and nearest name,
// and "did you mean" in YAML keys and choices, presets, strategies and plan files.
#include "planner/core/names.hpp"

#include <gtest/gtest.h>

#include <set>

#include "planner/core/cluster.hpp"
#include "planner/core/model.hpp"
#include "planner/core/model_states.hpp"
#include "planner/core/planner_options.hpp"
#include "planner/core/training_config.hpp"
#include "planner/core/transformer.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/preset_catalog.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/search_space.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

template <typename E>
class NameTableTest : public ::testing::Test {};
using NamedEnums =
    ::testing::Types<OperatorKind, DType, Precision, OptimizerKind, CheckpointPolicy, LinkClass,
                     IntraNodeKind, NetworkKind, MlpKind, NormKind, PositionKind, CostModelKind, ShardScope,
                     CollectiveKind, GroupKind, MemoryCategory, Task::Phase>;
TYPED_TEST_SUITE(NameTableTest, NamedEnums);

TYPED_TEST(NameTableTest, EveryValueHasOneUniqueSpellingThatParsesBack) {
  std::set<std::string> seen;
  for (const auto& entry : name_table<TypeParam>()) {
    EXPECT_TRUE(seen.insert(entry.name).second) << "duplicate spelling " << entry.name;
    EXPECT_STRNE(entry.description, "") << entry.name;
    EXPECT_STREQ(to_string(entry.value), entry.name);
    EXPECT_STREQ(description(entry.value), entry.description);
    const auto parsed = parse_name<TypeParam>(entry.name);
    ASSERT_TRUE(parsed.has_value()) << entry.name;
    EXPECT_EQ(*parsed, entry.value);
  }
  EXPECT_EQ(names<TypeParam>().size(), seen.size());
  EXPECT_EQ(values<TypeParam>().size(), seen.size());
  EXPECT_FALSE(parse_name<TypeParam>("no-such-name").has_value());
}

TEST(Names, TheSpellingsThatFilesAndJsonUse) {
  EXPECT_STREQ(to_string(LinkClass::cross_socket), "pcie-cross-socket");
  EXPECT_STREQ(to_string(Precision::mixed_bf16), "mixed-bf16");
  EXPECT_STREQ(to_string(CollectiveKind::reduce_scatter), "reduce-scatter");
  EXPECT_STREQ(to_string(MemoryCategory::gathered), "gathered");
  EXPECT_EQ((Scopes{ShardScope::N, ShardScope::I, ShardScope::G}.name()), "NIG");
  EXPECT_EQ(join(names<OptimizerKind>()), "adam, sgd");
  EXPECT_EQ(join({"a", "b", "c"}, " | "), "a | b | c");
  EXPECT_EQ(join({}), "");
}

TEST(Names, EditDistanceCountsEditsAndAdjacentSwapsIgnoringCase) {
  EXPECT_EQ(edit_distance("", ""), 0);
  EXPECT_EQ(edit_distance("abc", ""), 3);
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("micro_bach", "micro_batch"), 1);
  EXPECT_EQ(edit_distance("micro_bacth", "micro_batch"), 1);
  EXPECT_EQ(edit_distance("fdsp", "fsdp"), 1);
  EXPECT_EQ(edit_distance("ca", "abc"), 3);  // optimal string alignment: no edits inside a swapped pair
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
  EXPECT_EQ(edit_distance("FSDP", "fsdp"), 0);
}

TEST(Names, NearestNameOnlyWhenCloseEnough) {
  const std::vector<std::string> keys = {"global_batch", "micro_batch", "max_micro_batch"};
  EXPECT_EQ(nearest_name("micro_bach", keys), "micro_batch");
  EXPECT_EQ(nearest_name("MICRO_BATCH", keys), "micro_batch");
  EXPECT_FALSE(nearest_name("learning_rate", keys).has_value());
  // Short words allow one edit only: "fp8" is two away from "fp32".
  EXPECT_FALSE(nearest_name("fp8", names<Precision>()).has_value());
  EXPECT_EQ(nearest_name("fp23", names<Precision>()), "fp32");
  // Ties go to the earlier candidate.
  EXPECT_EQ(nearest_name("ab", {"ax", "ay"}), "ax");
  EXPECT_FALSE(nearest_name("x", {}).has_value());
}

TEST(Names, SuggestOrList) {
  EXPECT_EQ(suggest_or_list("hrng", names<CollectiveKind>(), "expected one of"),
            "; expected one of all-gather, reduce-scatter, all-reduce");
  EXPECT_EQ(suggest_or_list("all-gahter", names<CollectiveKind>(), "expected one of"),
            "; did you mean 'all-gather'?");
}

Scenario parse(const std::string& text) {
  return parse_scenario_string(text, "s.yaml", test::source_dir() + "/scenarios");
}

const std::string kModelAndCluster = "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n";

TEST(NameSuggestions, UnknownYamlKeySuggestsTheNearestKey) {
  try {
    parse(kModelAndCluster + "training:\n  micro_bach: 4\n");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "s.yaml:4: training.micro_bach: unknown key; did you mean 'micro_batch'?");
  }
  expect_input_error([] { parse(kModelAndCluster + "trainig: {micro_batch: 4}\n"); }, "s.yaml", 3, "trainig",
                     "unknown key; did you mean 'training'?");
}

TEST(NameSuggestions, UnknownYamlKeyFarFromEveryKeyListsThem) {
  expect_input_error([] { parse(kModelAndCluster + "training:\n  learning_rate: 4\n"); }, "s.yaml", 4,
                     "training.learning_rate",
                     "unknown key; expected one of: global_batch, micro_batch, gradient_accumulation_steps");
}

TEST(NameSuggestions, ChoiceSuggestsTheNearestValueAndListsThem) {
  expect_input_error(
      [] { parse(kModelAndCluster + "training: {precision: mixed-bf61}\n"); }, "s.yaml", 3,
      "training.precision",
      "expected one of fp32, mixed-bf16, mixed-fp16, got 'mixed-bf61'; did you mean 'mixed-bf16'?");
  expect_input_error([] { parse(kModelAndCluster + "training: {optimizer: lion}\n"); }, "s.yaml", 3,
                     "training.optimizer", "expected one of adam, sgd, got 'lion'");
  expect_input_error([] { parse(kModelAndCluster + "planner: {cost_model: topolgy}\n"); }, "s.yaml", 3,
                     "planner.cost_model", "did you mean 'topology'?");
}

TEST(NameSuggestions, CalibrationLinkClassTypo) {
  try {
    parse_calibration_string("links:\n  nvlnk: {alpha: 1us, bandwidth: 1GB/s}\n", "c.yaml");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "c.yaml:2: links.nvlnk: unknown key; did you mean 'nvlink'?");
  }
}

TEST(NameSuggestions, PresetsSuggestTheNearestOrListTheKnownOnes) {
  expect_input_error([] { parse("model: {preset: llama-7}\ncluster: {preset: dgx-a100}\n"); }, "s.yaml", 1,
                     "model.preset", "unknown model preset 'llama-7'; did you mean 'llama-7b'?");
  expect_input_error([] { parse("model: {preset: nd-48x1536}\ncluster: {preset: dgx-a10}\n"); }, "s.yaml", 2,
                     "cluster.preset", "unknown cluster preset 'dgx-a10'; did you mean 'dgx-a100'?");
  expect_input_error([] { parse("model: {preset: gpt-4}\ncluster: {preset: dgx-a100}\n"); }, "s.yaml", 1,
                     "model.preset", "unknown model preset 'gpt-4'; known presets: ic-24, ic-48");
  EXPECT_EQ(model_presets().names().size(), 16u);
  EXPECT_NE(model_presets().find("llama3.1-8b"), nullptr);  // a dot in the name: not cut at it
  EXPECT_NE(model_presets().find("llama-7b"), nullptr);
  EXPECT_EQ(model_presets().find("llama-7"), nullptr);
  EXPECT_EQ(model_presets().path_of(*model_presets().find("llama-7b")), "scenarios/models/llama-7b.yaml");
}

TEST(StrategyRegistry, NamesAliasesAndOrder) {
  const std::vector<std::string> names = strategy_names();
  ASSERT_EQ(names.size(), 1u + 6u + 14u + 2u);
  EXPECT_EQ(names.front(), "shardscope");
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const Strategy& s : strategies()) EXPECT_FALSE(s.description.empty()) << s.name;
  // plan's baselines are the registry entries marked baseline, in registry order.
  const TrainingConfig t;
  const std::vector<SearchSpace> baselines = baseline_spaces(t);
  ASSERT_EQ(baselines.size(), names.size() - 1);
  for (std::size_t i = 0; i < baselines.size(); ++i) EXPECT_EQ(baselines[i].name, names[i + 1]);
  EXPECT_EQ(find_strategy("ZERO-3"), find_strategy("fsdp"));
  EXPECT_EQ(space_by_name("zero-3", t).name, "fsdp");
  EXPECT_EQ(space_by_name("PARO-iig", t).name, "paro-IIG");
  EXPECT_EQ(space_by_name("shardscope", t).name, "shardscope");
  std::vector<std::string> classic;
  for (const Strategy& s : strategies()) {
    if (s.classic) classic.push_back(s.name + "=" + s.scopes.name());
  }
  EXPECT_EQ(join(classic), "ddp=NNN, zero-1=NNG, zero-2=NGG, fsdp=GGG");
}

TEST(StrategyRegistry, UnknownStrategySuggestsOrLists) {
  const TrainingConfig t;
  try {
    space_by_name("fdsp", t);
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown strategy 'fdsp'; did you mean 'fsdp'?");
  }
  EXPECT_EQ(unknown_strategy_message("zero-4"), "unknown strategy 'zero-4'; did you mean 'zero-1'?");
  EXPECT_EQ(unknown_strategy_message("megatron")
                .rfind("unknown strategy 'megatron'; known: shardscope, ddp, "
                       "zero-1, zero-2, fsdp, mics, zero++, paro-NNN",
                       0),
            0u)
      << unknown_strategy_message("megatron");
}

TEST(NameSuggestions, PlanFileScopeUsesTheScopeTable) {
  Model model;
  model.operators.push_back(Operator{});
  model.operators.back().name = "a";
  const std::string plan =
      R"({"strategy": "x", "batch_size": 1, "gradient_accumulation_steps": 1, "group_size": 1, )"
      R"("precision": "mixed-bf16", "sequence_length_tokens": 1, "cost_model": "topology", )"
      R"("model_digest": "0000000000000000", "scenario_digest": "0000000000000000", )"
      R"("calibration_digest": "0000000000000000", "operators": [)"
      R"({"name": "a", "p_scope": "X", "g_scope": "N", "os_scope": "N", "slices": 1, "sharded_slices": 0,)"
      R"( "checkpoint": false}]})";
  expect_input_error([&] { plan_from_json_string(plan, "p.json", model); }, "p.json", 1,
                     "plan.operators[0].p_scope", "expected one of N, I, G, got 'X'");
}

}  // namespace
}  // namespace shardscope
