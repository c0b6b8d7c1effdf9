// Tests of the transformer generator: operator count, exact parameters, FLOPs and Korthikanti activations.
#include "planner/core/transformer.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace shardscope {
namespace {

TransformerSpec gpt(int layers, std::int64_t hidden, int heads) {
  TransformerSpec s;
  s.name = "gpt";
  s.layers = layers;
  s.hidden = hidden;
  s.heads = heads;
  s.vocab = 50257;
  s.sequence_length = 1024;
  s.tied_embeddings = false;
  s.flash_attention = false;
  s.dropout = true;
  return s;
}

TEST(Transformer, OsdpGranularityHasTwoOperatorsPerLayerPlusTwo) {
  const Model m = generate_transformer(gpt(48, 1536, 16));
  ASSERT_EQ(m.operators.size(), 98u);
  EXPECT_EQ(m.operators.front().kind, OperatorKind::embedding);
  EXPECT_EQ(m.operators[1].name, "layer0.attention");
  EXPECT_EQ(m.operators[2].name, "layer0.mlp");
  EXPECT_EQ(m.operators.back().kind, OperatorKind::head);
  EXPECT_EQ(generate_transformer(gpt(96, 1024, 16)).operators.size(), 194u);
}

TEST(Transformer, ExactParametersOfAGptLayer) {
  const std::int64_t h = 1536;
  const Model m = generate_transformer(gpt(2, h, 16));
  // attention: LayerNorm 2h + QKV 3h^2 + 3h + output h^2 + h
  EXPECT_EQ(m.operators[1].parameters, 2 * h + 4 * h * h + 4 * h);
  // MLP: LayerNorm 2h + fc 4h^2 + 4h + proj 4h^2 + h
  EXPECT_EQ(m.operators[2].parameters, 2 * h + 8 * h * h + 5 * h);
  EXPECT_EQ(m.operators[0].parameters, 50257 * h + 1024 * h);  // tokens + learned positions
  EXPECT_EQ(m.operators[5].parameters, 2 * h + 50257 * h);     // final LayerNorm + untied head
}

TEST(Transformer, ForwardFlopsPerSample) {
  const double h = 1536, s = 1024;
  const Model m = generate_transformer(gpt(1, 1536, 16));
  EXPECT_DOUBLE_EQ(m.operators[1].forward_flops_per_sample, 2 * s * 4 * h * h + 4 * s * s * h);
  EXPECT_DOUBLE_EQ(m.operators[2].forward_flops_per_sample, 2 * s * 8 * h * h);
  EXPECT_DOUBLE_EQ(m.operators[2].backward_flops_per_sample, 2 * m.operators[2].forward_flops_per_sample);
  EXPECT_DOUBLE_EQ(m.operators[3].forward_flops_per_sample, 2 * s * h * 50257);
}

TEST(Transformer, KorthikantiActivationsWithoutAndWithFlashAttention) {
  // Korthikanti et al. 2022, no tensor parallelism: s*h*(34 + 5*a*s/h) bytes per layer per sample.
  const std::int64_t s = 1024, h = 1536, a = 16;
  TransformerSpec spec = gpt(1, h, static_cast<int>(a));
  Model m = generate_transformer(spec);
  const std::int64_t layer =
      m.operators[1].activation_bytes_per_sample + m.operators[2].activation_bytes_per_sample;
  EXPECT_EQ(layer, 34 * s * h + 5 * a * s * s);
  spec.flash_attention = true;
  m = generate_transformer(spec);
  const std::int64_t flash =
      m.operators[1].activation_bytes_per_sample + m.operators[2].activation_bytes_per_sample;
  EXPECT_EQ(flash, 34 * s * h + 4 * a * s);  // only fp32 log-sum-exp statistics remain
}

TEST(Transformer, InconsistentWidthsAddAProjection) {
  TransformerSpec spec = gpt(2, 1024, 16);
  spec.layer_hidden = {1024, 2048};
  const Model m = generate_transformer(spec);
  const std::int64_t h = 2048, prev = 1024;
  EXPECT_EQ(m.operators[3].parameters, 2 * h + 4 * h * h + 4 * h + prev * h + h);
  EXPECT_EQ(m.operators[4].parameters, 2 * h + 8 * h * h + 5 * h);
  EXPECT_EQ(m.operators[5].parameters, 2 * h + 50257 * h);  // head at the last width
}

TEST(Transformer, RejectsInconsistentSpecs) {
  TransformerSpec spec = gpt(2, 1000, 16);  // 1000 is not a multiple of 16 heads
  EXPECT_THROW(generate_transformer(spec), std::invalid_argument);
  spec = gpt(2, 1024, 16);
  spec.layer_hidden = {1024};
  EXPECT_THROW(generate_transformer(spec), std::invalid_argument);
  spec = gpt(2, 1024, 16);
  spec.kv_heads = 5;
  EXPECT_THROW(generate_transformer(spec), std::invalid_argument);
  spec = gpt(0, 1024, 16);
  EXPECT_THROW(generate_transformer(spec), std::invalid_argument);
}

}  // namespace
}  // namespace shardscope
