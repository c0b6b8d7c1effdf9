// Flash attention per scenario (model.flash_attention): the attention operator's kept activations and
// workspace with and without it, by hand (Korthikanti et al. 2022), the default, and a bad value.
#include <gtest/gtest.h>

#include "planner/io/scenario_parser.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

const std::string kCluster = "cluster: {preset: titan-rtx-8-pcie3}\n";

const Operator& first_attention(const Scenario& s) { return s.model.operators.at(1); }

TEST(FlashAttention, ScenarioFieldSwitchesTheScoreMatrices) {
  // nd-48x1536: s = 1024 tokens, h = 1536, a = 16 heads, 2-byte activations, 1-byte dropout masks.
  const std::int64_t s = 1024, h = 1536, a = 16;
  const Scenario without =
      parse_scenario_string("model: {preset: nd-48x1536, flash_attention: false}\n" + kCluster, "s.yaml");
  const Scenario with =
      parse_scenario_string("model: {preset: nd-48x1536, flash_attention: true}\n" + kCluster, "s.yaml");
  ASSERT_EQ(first_attention(without).name, "layer0.attention");
  // Kept: norm input, QKV input, Q, K, V, output-projection input (2sh each, 2 bytes) and the dropout
  // mask (sh): 13sh; without flash attention also the s x s scores per head, 5as^2 (softmax output 2,
  // dropout mask 1, dropout output 2 bytes); with it only the fp32 log-sum-exp statistics, 4as.
  EXPECT_EQ(first_attention(without).activation_bytes_per_sample, 13 * s * h + 5 * a * s * s);
  EXPECT_EQ(first_attention(with).activation_bytes_per_sample, 13 * s * h + 4 * a * s);
  // Workspace: the fp32 score matrix of all heads without it, the fused QKV output (2 bytes x 3sh) with it.
  EXPECT_EQ(first_attention(without).workspace_bytes_per_sample, 4 * a * s * s);
  EXPECT_EQ(first_attention(with).workspace_bytes_per_sample, 2 * 3 * s * h);
  // The preset's own setting (OSDP's models: off) holds when the scenario does not say.
  const Scenario preset = parse_scenario_string("model: {preset: nd-48x1536}\n" + kCluster, "s.yaml");
  EXPECT_EQ(first_attention(preset).activation_bytes_per_sample,
            first_attention(without).activation_bytes_per_sample);
}

TEST(FlashAttention, OnByDefaultForATransformerThatDoesNotSay) {
  // A transformer spec keeps no dropout masks unless it says so: 12sh kept besides the scores.
  const std::int64_t s = 128, h = 256, a = 4;
  const std::string spec =
      "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, vocab: 1000, sequence_length: 128";
  const Scenario unsaid = parse_scenario_string(spec + "}\n" + kCluster, "s.yaml");
  EXPECT_EQ(first_attention(unsaid).activation_bytes_per_sample, 12 * s * h + 4 * a * s);
  // Without flash attention and without dropout only the softmax output is kept: 2as^2 (not 5as^2).
  const Scenario off = parse_scenario_string(spec + ", flash_attention: false}\n" + kCluster, "s.yaml");
  EXPECT_EQ(first_attention(off).activation_bytes_per_sample, 12 * s * h + 2 * a * s * s);
  const Scenario dropout =
      parse_scenario_string(spec + ", flash_attention: false, dropout: true}\n" + kCluster, "s.yaml");
  EXPECT_EQ(first_attention(dropout).activation_bytes_per_sample, 13 * s * h + 5 * a * s * s);
  // In fp32 the flash statistics stay 4as bytes; the other tensors double.
  const Scenario fp32 = parse_scenario_string(spec + ", dtype: fp32}\n" + kCluster, "s.yaml");
  EXPECT_EQ(first_attention(fp32).activation_bytes_per_sample, 24 * s * h + 4 * a * s);
}

TEST(FlashAttention, ABadValueIsAnInputErrorNamingTheField) {
  test::expect_input_error(
      [] {
        parse_scenario_string("model: {preset: nd-48x1536, flash_attention: maybe}\n" + kCluster, "s.yaml");
      },
      "s.yaml", 1, "model.flash_attention", "expected true or false, got 'maybe'");
}

}  // namespace
}  // namespace shardscope
