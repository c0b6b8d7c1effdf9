// The plan as a framework's configuration: each operator's FSDP2 placement by hand (meshes, resharding,
// what cannot be expressed), a tied head, the single-policy targets' choice, and bad names refused.
#include "planner/report/plan_export.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

constexpr ShardScope N = ShardScope::N, I = ShardScope::I, G = ShardScope::G;

Scenario llama(bool tied) {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 2, hidden: 256, heads: 4, ffn_hidden: 512, vocab: 1000, "
      "sequence_length: 128, mlp: gated, norm: rmsnorm, positions: rotary, tied_embeddings: " +
          std::string(tied ? "true" : "false") +
          "}\ncluster: {preset: dgx-a100, nodes: 2}\n"
          "training: {precision: mixed-bf16}\nexecution: {reduce_dtype: fp32}\n",
      "tiny.yaml");
}

// embedding, layer0.attention, layer0.mlp, layer1.attention, layer1.mlp, head.
Plan plan_with(const Scenario& s, const std::vector<OperatorChoice>& choices) {
  Plan plan;
  plan.strategy = "by-hand";
  plan.micro_batch = 2;
  plan.gradient_accumulation_steps = 3;
  plan.group_size = 8;
  plan.operators = choices;
  EXPECT_EQ(choices.size(), s.model.operators.size());
  return plan;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(PlanExport, EachOperatorsFsdp2PlacementByHand) {
  const Scenario s = llama(false);
  OperatorChoice hpz{"layer0.mlp", {G, G, G}, true, 1, 1, false};
  const Plan plan = plan_with(s, {{"embedding", {N, N, G}, false, 1, 1, false},
                                  {"layer0.attention", {I, G, G}, false, 1, 1, true},
                                  hpz,
                                  {"layer1.attention", {I, I, I}, false, 1, 1, false},
                                  {"layer1.mlp", {N, N, N}, false, 1, 0, false},
                                  {"head", {G, G, G}, false, 4, 2, false}});
  const PlanExport e = export_plan(s, plan, ExportFormat::fsdp2);
  EXPECT_TRUE(
      has(e.text, R"(("embedding", ["model.embed_tokens"], ["tok_embeddings"], "global", False, False),)"));
  EXPECT_TRUE(has(e.text, R"(("layer0.attention", ["model.layers.0.self_attn"], ["layers.0.attention"], )"
                          R"("global", GROUP_SIZE, True),)"));
  EXPECT_TRUE(has(e.text, R"(["layers.0.feed_forward"], "global", GROUP_SIZE, False),)"));
  EXPECT_TRUE(has(e.text, R"(["layers.1.attention"], "hsdp", True, False),)"));
  EXPECT_TRUE(has(e.text, R"(["layers.1.feed_forward"], "replicate", False, False),)"));
  EXPECT_TRUE(
      has(e.text, R"(("head", ["model.norm", "lm_head"], ["norm", "output"], "global", True, False),)"));
  EXPECT_TRUE(has(e.text, "MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)"));
  EXPECT_TRUE(
      has(e.text, "WORLD_SIZE = 16\nGROUP_SIZE = 8\nMICRO_BATCH = 2\nGRADIENT_ACCUMULATION_STEPS = 3\n"));
  ASSERT_EQ(e.unexpressed.size(), 2u);
  EXPECT_EQ(e.unexpressed[0],
            "gradients scoped unlike the optimizer state (stored alike here: as the state): "
            "1 operator, e.g. embedding (NNG)");
  EXPECT_EQ(e.unexpressed[1],
            "operator splitting (each wrapped whole, with its sharded slices' scopes): 1 "
            "operator, e.g. head (4 slices, 2 sharded)");
  EXPECT_TRUE(has(e.text, "Not expressible in fsdp2 (applied as said):\n  - gradients scoped"));
}

TEST(PlanExport, ATiedHeadWrapsOnlyTheFinalNorm) {
  const Scenario s = llama(true);
  std::vector<OperatorChoice> fsdp;
  for (const Operator& op : s.model.operators) fsdp.push_back({op.name, {G, G, G}, false, 1, 1, false});
  const PlanExport e = export_plan(s, plan_with(s, fsdp), ExportFormat::fsdp2);
  EXPECT_TRUE(has(e.text, R"(("head", ["model.norm"], ["norm"], "global", True, False),)")) << e.text;
  ASSERT_EQ(e.unexpressed.size(), 1u);
  EXPECT_TRUE(has(e.unexpressed[0], "a tied head")) << e.unexpressed[0];
}

// torchtitan and DeepSpeed run one policy: the placement holding most parameters, the rest listed.
TEST(PlanExport, SinglePolicyTargetsTakeThePlacementHoldingMostParameters) {
  const Scenario s = llama(false);
  std::vector<OperatorChoice> mics;
  for (const Operator& op : s.model.operators)
    mics.push_back({op.name, {I, I, I}, false, 1, 1, op.layer >= 0});
  mics.front().scopes = {G, G, G};  // the embedding (256,000 parameters) planned otherwise
  const Plan plan = plan_with(s, mics);
  const PlanExport titan = export_plan(s, plan, ExportFormat::torchtitan);
  EXPECT_TRUE(has(titan.text, "data_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 8\n"))
      << titan.text;
  EXPECT_TRUE(has(titan.text, "local_batch_size = 2\nglobal_batch_size = 96\nseq_len = 128\n"));
  ASSERT_EQ(titan.unexpressed.size(), 1u);
  EXPECT_TRUE(has(titan.unexpressed[0], "2 operators planned otherwise, e.g. embedding (GGG)"))
      << titan.unexpressed[0];
  const PlanExport ds = export_plan(s, plan, ExportFormat::deepspeed);
  const nlohmann::json j = nlohmann::json::parse(ds.text);
  EXPECT_EQ(j["zero_optimization"]["stage"], 3);
  EXPECT_EQ(j["zero_optimization"]["mics_shard_size"], 8);
  EXPECT_EQ(j["train_micro_batch_size_per_gpu"], 2);
  EXPECT_EQ(j["gradient_accumulation_steps"], 3);
  EXPECT_TRUE(j["bf16"]["enabled"].get<bool>());
  EXPECT_EQ(j["_shardscope"].size(), 4u);
  // ZeRO-2 inside groups (PaRO's partial redundancy) has no DeepSpeed form: said so.
  for (OperatorChoice& c : mics) c.scopes = {N, I, I};
  const PlanExport zero2 = export_plan(s, plan_with(s, mics), ExportFormat::deepspeed);
  EXPECT_EQ(nlohmann::json::parse(zero2.text)["zero_optimization"]["stage"], 2);
  EXPECT_TRUE(has(zero2.unexpressed.back(), "DeepSpeed has MiCS groups at stage 3 only"));
}

TEST(PlanExport, FormatNamesAreOneTable) {
  EXPECT_EQ(parse_name<ExportFormat>("fsdp2"), ExportFormat::fsdp2);
  EXPECT_EQ(parse_name<ExportFormat>("torchtitan"), ExportFormat::torchtitan);
  EXPECT_EQ(parse_name<ExportFormat>("deepspeed"), ExportFormat::deepspeed);
  EXPECT_FALSE(parse_name<ExportFormat>("megatron").has_value());
}

}  // namespace
}  // namespace shardscope
