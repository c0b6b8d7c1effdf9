// ScenarioDocument: fields read and set by `--set`'s paths, the text written back with its comments and
// untouched lines byte for byte, and errors that name the path and what was expected.
#include "planner/io/scenario_document.hpp"

#include <gtest/gtest.h>

#include <string>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/io/scenario_overrides.hpp"
#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

using test::expect_input_error;

const std::string kDefault = test::source_dir() + "/scenarios/default.yaml";

const std::string kCommented =
    "# A scenario with comments everywhere.\n"
    "name: commented  # the name\n"
    "model:\n"
    "  preset: nd-48x1536\n"
    "cluster:\n"
    "  # the machine\n"
    "  preset: titan-rtx-8-pcie3\n"
    "training:\n"
    "  memory_limit: 8GB   # per GPU\n"
    "  runtime_reserve: 512MiB\n"
    "  precision: mixed-fp16\n"
    "  slice_granularities: [1, 2, 4, 8]  # powers of two\n"
    "  max_micro_batch: 64\n"
    "# a comment at the end\n";

// `text` with the first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(ScenarioDocument, UnchangedTextIsKeptAsItIs) {
  const ScenarioDocument doc(kCommented, "c.yaml");
  EXPECT_EQ(doc.text(), kCommented);
  EXPECT_EQ(doc.get("training.memory_limit"), "8GB");
  EXPECT_EQ(doc.get("training.slice_granularities"), "[1, 2, 4, 8]");
  EXPECT_EQ(doc.get("model"), "{preset: nd-48x1536}");
  EXPECT_EQ(doc.get("training.micro_batch"), std::nullopt);
  EXPECT_EQ(doc.get("planner.cost_model"), std::nullopt);
}

TEST(ScenarioDocument, SettingAScalarChangesOnlyItsValue) {
  ScenarioDocument doc(kCommented, "c.yaml");
  doc.set("training.memory_limit", "16GB");
  EXPECT_EQ(doc.text(), replaced(kCommented, "memory_limit: 8GB ", "memory_limit: 16GB "));
  EXPECT_EQ(doc.scenario().training.memory_limit_bytes, 16'000'000'000);
  doc.set("training.slice_granularities", "[1, 2]");
  EXPECT_EQ(doc.get("training.slice_granularities"), "[1, 2]");
  EXPECT_NE(doc.text().find("slice_granularities: [1, 2]  # powers of two\n"), std::string::npos);
  doc.set("name", "'renamed: yes'");  // a value that needs its quotes
  EXPECT_EQ(doc.scenario().name, "renamed: yes");
  EXPECT_NE(doc.text().find("  # the name\n"), std::string::npos) << doc.text();
}

TEST(ScenarioDocument, NewFieldsAreNewLinesInTheirSection) {
  ScenarioDocument doc(kCommented, "c.yaml");
  doc.set("training.micro_batch", "4");
  EXPECT_EQ(doc.text(),
            replaced(kCommented, "  max_micro_batch: 64\n", "  max_micro_batch: 64\n  micro_batch: 4\n"));
  doc.set("cluster.network.nic_rate", "100Gbps");
  EXPECT_NE(doc.text().find("  preset: titan-rtx-8-pcie3\n  network:\n    nic_rate: 100Gbps\n"),
            std::string::npos)
      << doc.text();
  doc.set("execution.overlap", "false");  // a new section
  EXPECT_EQ(doc.get("execution.overlap"), "false");
  EXPECT_FALSE(doc.scenario().execution.overlap);
  EXPECT_EQ(doc.text().rfind("# a comment at the end\n", 0), std::string::npos);
  EXPECT_NE(doc.text().find("# a comment at the end\n"), std::string::npos);
  EXPECT_EQ(doc.text().rfind("# A scenario with comments everywhere.\n", 0), 0U);
}

TEST(ScenarioDocument, RemovingAFieldDeletesItsLinesAndEmptySections) {
  ScenarioDocument doc(kCommented, "c.yaml");
  doc.remove("training.max_micro_batch");
  EXPECT_EQ(doc.text(), replaced(kCommented, "  max_micro_batch: 64\n", ""));
  doc.set("cluster.gpu.memory", "16GiB");
  doc.remove("cluster.gpu.memory");
  EXPECT_EQ(doc.text(), replaced(kCommented, "  max_micro_batch: 64\n", ""));
  doc.remove("planner.cost_model");  // absent: nothing
  EXPECT_EQ(doc.text(), replaced(kCommented, "  max_micro_batch: 64\n", ""));
}

TEST(ScenarioDocument, FlowSectionsAreEditedInPlace) {
  ScenarioDocument doc(
      "name: x  # keep\nmodel: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 8GB, precision: mixed-fp16}\n",
      "flow.yaml");
  doc.set("training.memory_limit", "12GB");
  EXPECT_EQ(doc.text(),
            "name: x  # keep\nmodel: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
            "training: {memory_limit: 12GB, precision: mixed-fp16}\n");
  doc.set("training.micro_batch", "2");  // a new field in a flow section: that section is written anew
  EXPECT_EQ(doc.get("training.micro_batch"), "2");
  EXPECT_EQ(doc.text().rfind("name: x  # keep\nmodel: {preset: nd-48x1536}\n", 0), 0U) << doc.text();
  EXPECT_EQ(doc.scenario().training.micro_batch, 2);
}

TEST(ScenarioDocument, SetsAsTheCommandLineDoes) {
  ScenarioDocument doc = ScenarioDocument::load_file(kDefault);
  doc.set("model", "nd-64x1536");
  doc.set("cluster.nodes", "2");
  const Scenario by_set = load_scenario_with_overrides(
      kDefault, {parse_set_argument("model=nd-64x1536"), parse_set_argument("cluster.nodes=2")});
  EXPECT_EQ(scenario_digest(doc.scenario()), scenario_digest(by_set));
  // The file's opening comment stays.
  EXPECT_EQ(doc.text().rfind("# Default scenario", 0), 0U);
}

TEST(ScenarioDocument, TheModelsShapeComesFromItsPresetUntilItIsOwned) {
  ScenarioDocument doc(kCommented, "c.yaml");
  EXPECT_EQ(doc.transformer_value("layers"), "48");
  EXPECT_EQ(doc.transformer_value("hidden"), "1536");
  EXPECT_EQ(doc.transformer_value("no_such_key"), std::nullopt);
  ASSERT_TRUE(doc.own_transformer());
  EXPECT_EQ(doc.get("model.name"), "nd-48x1536-edited");
  doc.set("model.transformer.layers", "24");
  EXPECT_EQ(doc.transformer_value("layers"), "24");
  EXPECT_EQ(doc.scenario().model.name, "nd-48x1536-edited");
  EXPECT_NE(doc.text().find("# the machine\n"), std::string::npos);
  ScenarioDocument hf("model: {hf_config: x.json}\n", "hf.yaml");
  EXPECT_EQ(hf.transformer_value("layers"), std::nullopt);
  EXPECT_FALSE(hf.own_transformer());
}

TEST(ScenarioDocument, PortableTextHasAbsolutePaths) {
  const ScenarioDocument doc("# hf\nmodel:\n  hf_config: hf/llama-2-7b.json\ncluster: {preset: dgx-a100}\n",
                             "s.yaml", test::source_dir() + "/scenarios");
  const std::string text = doc.portable_text();
  EXPECT_NE(text.find("hf_config: " + test::source_dir() + "/scenarios/hf/llama-2-7b.json"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.rfind("# hf\n", 0), 0U);
  EXPECT_EQ(doc.text().find(test::source_dir()), std::string::npos);  // the document itself is unchanged
}

TEST(ScenarioDocument, ErrorsNameThePathAndWhatWasExpected) {
  ScenarioDocument doc(kCommented, "c.yaml");
  expect_input_error([&] { doc.set("training..memory_limit", "1GB"); }, "c.yaml", 0, "training..memory_limit",
                     "malformed field path: expected dotted names");
  expect_input_error([&] { doc.set("training.memory_limit.x", "1GB"); }, "c.yaml", 0,
                     "training.memory_limit.x", "holds a single value or a list, not a section");
  expect_input_error([&] { doc.set("training.memory_limit", "[1, "); }, "c.yaml", 0, "training.memory_limit",
                     "malformed value");
  expect_input_error([&] { doc.set("training.memory_limit", ""); }, "c.yaml", 0, "training.memory_limit",
                     "expected a value");
  expect_input_error([&] { doc.set("training.slice_granularities[9]", "2"); }, "c.yaml", 0,
                     "training.slice_granularities[9]", "index 9 is past its end");
  expect_input_error([&] { (void)doc.get("model.operators[x]"); }, "c.yaml", 0, "model.operators[x]",
                     "expected KEY[INDEX] with a whole number");
  EXPECT_EQ(doc.text(), kCommented);  // nothing changed
  // The value's meaning is the parser's to judge, at the field's line in the text.
  doc.set("training.memory_limit", "lots");
  expect_input_error([&] { (void)doc.scenario(); }, "c.yaml", 9, "training.memory_limit", "lots");
}

TEST(ScenarioDocument, TextsThatAreNotScenariosAreRefused) {
  expect_input_error([] { ScenarioDocument("- a\n- b\n", "list.yaml"); }, "list.yaml", -1, "",
                     "expected a YAML mapping");
  expect_input_error([] { ScenarioDocument("a: 1\na: 2\n", "twice.yaml"); }, "twice.yaml", -1, "a", "");
  expect_input_error([] { (void)ScenarioDocument::load_file("/no/such/scenario.yaml"); },
                     "/no/such/scenario.yaml", -1, "", "");
}

}  // namespace
}  // namespace shardscope
