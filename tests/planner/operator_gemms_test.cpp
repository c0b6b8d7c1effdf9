// The generated transformers' matrix products: their FLOPs are the operator's forward FLOPs exactly.
#include <gtest/gtest.h>

#include <string>

#include "planner/core/transformer.hpp"
#include "planner/io/transformer_parser.hpp"

namespace shardscope {
namespace {

void expect_gemms_add_up(const Model& model) {
  for (const Operator& op : model.operators) {
    double flops = 0;
    for (const GemmShape& g : op.forward_gemms) {
      EXPECT_GT(g.m * g.n * g.k * g.batch, 0) << op.name << " " << g.role;
      flops += g.flops();
    }
    EXPECT_DOUBLE_EQ(flops, op.forward_flops_per_sample) << model.name << " " << op.name;
  }
}

TEST(OperatorGemms, PresetsFlopsAddUp) {
  for (const char* preset : {"nd-48x1536", "llama-7b", "ws-2x10240", "ic-24"}) {
    expect_gemms_add_up(generate_transformer(model_preset(preset, "test", 0, "model.preset")));
  }
}

TEST(OperatorGemms, GroupedQueryMixtureOfExpertsFlopsAddUp) {
  TransformerSpec spec;
  spec.layers = 2;
  spec.hidden = 512;
  spec.heads = 8;
  spec.kv_heads = 2;
  spec.ffn_hidden = 1024;
  spec.vocab = 1000;
  spec.sequence_length = 64;
  spec.mlp = MlpKind::gated;
  spec.experts = 4;
  spec.experts_per_token = 2;
  const Model model = generate_transformer(spec);
  expect_gemms_add_up(model);
  const Operator& attention = model.operators[1];
  ASSERT_EQ(attention.forward_gemms.size(), 4u);
  EXPECT_EQ(attention.forward_gemms[0].role, "qkv");
  EXPECT_EQ(attention.forward_gemms[0].n, 512 + 2 * 128);  // q_dim + 2 kv_dim
  EXPECT_EQ(attention.forward_gemms[1].role, "scores");
  EXPECT_EQ(attention.forward_gemms[1].batch, 8);
  EXPECT_EQ(attention.forward_gemms[1].k, 64);  // head_dim
}

TEST(OperatorGemms, InconsistentWidthsAddAResizeProjection) {
  TransformerSpec spec;
  spec.layers = 2;
  spec.layer_hidden = {256, 512};
  spec.heads = 4;
  spec.vocab = 100;
  spec.sequence_length = 32;
  const Model model = generate_transformer(spec);
  expect_gemms_add_up(model);
  EXPECT_EQ(model.operators[3].forward_gemms.front().role, "resize");
}

}  // namespace
}  // namespace shardscope
