// Names are printable UTF-8 (finding 10): control characters and invalid UTF-8 are errors at their line, and
// an inline transformer without a name gets one from its shape.
#include <gtest/gtest.h>

#include "planner/core/printable.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/io/hf_config.hpp"
#include "planner/io/scenario_parser.hpp"
#include "tests/inputs/test_util.hpp"

namespace shardscope {
namespace {

const std::string kCluster = "cluster: {preset: titan-rtx-8-pcie3}\n";

TEST(PrintableNames, ControlCharactersAndInvalidUtf8AreFoundAndEscaped) {
  EXPECT_FALSE(unprintable_reason("layer0.attention"));
  EXPECT_FALSE(unprintable_reason("モデル-ü"));  // valid multi-byte UTF-8 is printable
  EXPECT_EQ(*unprintable_reason("ab\x1b[31m"), "contains the control character \\x1b at byte 3");
  EXPECT_EQ(*unprintable_reason("bell\a"), "contains the control character \\x07 at byte 5");
  EXPECT_EQ(*unprintable_reason("del\x7f"), "contains the control character \\x7f at byte 4");
  EXPECT_EQ(*unprintable_reason("c1\xc2\x9b"), "contains the control character \\xc2\\x9b at byte 3");
  EXPECT_EQ(*unprintable_reason("bad\xff"), "is not valid UTF-8 (byte \\xff at byte 4)");
  EXPECT_EQ(*unprintable_reason("cut\xe3\x83"), "is not valid UTF-8 (byte \\xe3 at byte 4)");
  EXPECT_EQ(*unprintable_reason("overlong\xc0\xaf"), "is not valid UTF-8 (byte \\xc0 at byte 9)");
  EXPECT_EQ(escape_unprintable("a\x1b[2Jb\a\x7f\xff"), "a\\x1b[2Jb\\x07\\x7f\\xff");
  EXPECT_EQ(escape_unprintable("モデル\tx"), "モデル\\x09x");
}

TEST(PrintableNames, AnOperatorNameWithEscIsAnErrorAtItsLine) {
  test::expect_input_error(
      [&] {
        parse_scenario_string(
            "model:\n  operators:\n    - {name: ok, parameters: 5}\n"
            "    - {name: \"evil\\e[2J\", parameters: 5}\n" +
                kCluster,
            "s.yaml");
      },
      "s.yaml", 4, "model.operators[1].name", "'evil\\x1b[2J', which contains the control character \\x1b");
}

TEST(PrintableNames, ModelScenarioClusterAndGpuNamesAreChecked) {
  test::expect_input_error(
      [&] { parse_scenario_string("name: \"ding\\a\"\nmodel: {preset: nd-48x1536}\n" + kCluster, "s.yaml"); },
      "s.yaml", 1, "name", "control character \\x07");
  test::expect_input_error(
      [&] {
        parse_scenario_string("model:\n  preset: nd-48x1536\n  name: \"x\\x7f\"\n" + kCluster, "s.yaml");
      },
      "s.yaml", 3, "model.name", "control character \\x7f");
  test::expect_input_error(
      [&] {
        parse_scenario_string(
            "model: {preset: nd-48x1536}\ncluster:\n  preset: titan-rtx-8-pcie3\n"
            "  name: \"bad\xff\"\n",
            "s.yaml");
      },
      "s.yaml", 4, "cluster.name", "not valid UTF-8");
  test::expect_input_error(
      [&] {
        parse_scenario_string(
            "model: {preset: nd-48x1536}\ncluster:\n  preset: titan-rtx-8-pcie3\n"
            "  gpu: {name: \"\\e]0;pwned\\a\"}\n",
            "s.yaml");
      },
      "s.yaml", 4, "cluster.gpu.name", "control character \\x1b");
}

TEST(PrintableNames, AScenarioBuiltInCodeIsCheckedToo) {
  Scenario s = parse_scenario_string("model: {preset: nd-48x1536}\n" + kCluster, "s.yaml");
  s.model.operators[2].name = "layer0\r.mlp";
  test::expect_input_error([&] { validate_scenario(s); }, "s.yaml", 0, "model.operators[2].name",
                           "control character \\x0d");
}

TEST(PrintableNames, AHuggingFaceNameWithAnEscapeIsAnErrorAtItsLine) {
  const std::string config =
      "{\n  \"model_type\": \"gpt2\",\n  \"_name_or_path\": \"gpt\\u001b[31m2\",\n  \"n_layer\": 2,\n"
      "  \"n_embd\": 64,\n  \"n_head\": 4,\n  \"vocab_size\": 100,\n  \"n_positions\": 128\n}\n";
  test::expect_input_error([&] { parse_hf_config_string(config, "config.json", 0); }, "config.json", 3,
                           "_name_or_path", "control character \\x1b");
}

TEST(PrintableNames, AnEscapedFileStemNamesAnUnnamedScenario) {
  const Scenario s = parse_scenario_string("model: {preset: nd-48x1536}\n" + kCluster, "dir/a\x1b[1m.yaml");
  EXPECT_EQ(s.name, "a\\x1b[1m");
}

TEST(PrintableNames, AnInlineTransformerWithoutANameIsNamedByItsShape) {
  const std::string spec = "{layers: 2, hidden: 64, heads: 4, vocab: 100, sequence_length: 32}";
  EXPECT_EQ(parse_scenario_string("model:\n  transformer: " + spec + "\n" + kCluster).model.name,
            "transformer-2x64");
  EXPECT_EQ(
      parse_scenario_string("model:\n  name: mine\n  transformer: " + spec + "\n" + kCluster).model.name,
      "mine");
  const Scenario staged = parse_scenario_string(
      "model:\n  transformer: {stages: [{layers: 1, hidden: 64}, {layers: 2, hidden: 128}], heads: 4, vocab: "
      "100, sequence_length: 32, experts: 4, experts_per_token: 2}\n" +
      kCluster);
  EXPECT_EQ(staged.model.name, "transformer-3x64-128-moe4");
}

// A double-quoted literal reads back in YAML and Python: quotes, backslashes and line breaks escaped.
TEST(PrintableNames, ADoubleQuotedLiteralEscapesQuotesBackslashesAndLineBreaks) {
  EXPECT_EQ(double_quoted("plain"), "\"plain\"");
  EXPECT_EQ(double_quoted("a \"b\" c\\d\ne"), "\"a \\\"b\\\" c\\\\d\\ne\"");
  EXPECT_EQ(double_quoted(""), "\"\"");
}

}  // namespace
}  // namespace shardscope
