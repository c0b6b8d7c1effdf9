// Op-level selective checkpointing (torchtitan's op policy): what a block keeps and recomputes by hand, its
// price in the cost model and the iteration program, the search's choices, and every refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

constexpr ShardScope G = ShardScope::G;

// Llama 3.1 8B's block at 8,192 tokens (torchtitan's shape), one layer.
Scenario llama(const std::string& checkpointing, const std::string& extra = "") {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 2, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, "
      "vocab: 128256, sequence_length: 8192, mlp: gated, norm: rmsnorm, positions: rotary, " +
          extra +
          "}\n"
          "cluster: {preset: dgx-h100}\ntraining: {micro_batch: 2, checkpointing: " +
          checkpointing + "}\nexecution: {runtime: fsdp2}\n",
      "s.yaml");
}

const Operator& named(const Scenario& s, const std::string& name) {
  return *std::find_if(s.model.operators.begin(), s.model.operators.end(),
                       [&](const Operator& op) { return op.name == name; });
}

std::size_t index_of(const Scenario& s, const std::string& name) {
  return static_cast<std::size_t>(&named(s, name) - s.model.operators.data());
}

// Products numbered per block in forward order: Q 1 (kept), K 2, V 3 (kept), O 4, gate 5 (kept), up 6,
// down 7 (kept); flash attention keeps its output and fp32 log-sum-exp; the attention keeps the block input.
TEST(SelectiveCheckpointing, ALlamaBlockKeepsOddProductsAndTheAttentionKernelsOutput) {
  const Scenario s = llama("selective");
  const double t = 8192, h = 4096, kv = 1024, f = 14336, heads = 32;
  const Operator& att = named(s, "layer0.attention");
  EXPECT_EQ(att.selective_bytes_per_sample, 2 * t * h + 2 * t * h + 2 * t * kv + 2 * t * h + 4 * heads * t);
  EXPECT_DOUBLE_EQ(att.selective_recompute_flops_per_sample, 2 * t * h * kv + 2 * t * h * h);
  const Operator& mlp = named(s, "layer0.mlp");
  EXPECT_EQ(mlp.selective_bytes_per_sample, 2 * t * f + 2 * t * h);
  EXPECT_DOUBLE_EQ(mlp.selective_recompute_flops_per_sample, 2 * t * h * f);
  for (const char* whole : {"embedding", "head"}) {
    const Operator& op = named(s, whole);
    EXPECT_EQ(op.selective_bytes_per_sample, op.activation_bytes_per_sample) << whole;
    EXPECT_EQ(op.selective_recompute_flops_per_sample, 0) << whole;
  }
}

// A GELU MLP has two products: up (5, kept) and down (6, recomputed). Without flash attention the scores
// are rebuilt: their FLOPs are recomputed and nothing of the kernel is kept.
TEST(SelectiveCheckpointing, AGeluMlpKeepsItsUpProductAndPlainAttentionRebuildsItsScores) {
  const Scenario s = parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048, "
      "flash_attention: false}\ncluster: {preset: dgx-h100}\ntraining: {micro_batch: 1, checkpointing: "
      "selective}\n",
      "s.yaml");
  const double t = 2048, h = 1024;
  const Operator& mlp = named(s, "layer0.mlp");
  EXPECT_EQ(mlp.selective_bytes_per_sample, 2 * t * 4 * h);
  EXPECT_DOUBLE_EQ(mlp.selective_recompute_flops_per_sample, 2 * t * 4 * h * h);
  const Operator& att = named(s, "layer0.attention");
  EXPECT_EQ(att.selective_bytes_per_sample, 2 * t * h + 2 * t * h + 2 * t * h);  // input, Q, V
  EXPECT_DOUBLE_EQ(att.selective_recompute_flops_per_sample, 2 * t * h * h * 2 + 4 * t * t * h);
}

// A layer whose width changes adds a resize product first: the attention's products shift by one, and so
// does its MLP's parity (6 products before it: gate 6 recomputed, up 7 kept, down 8 recomputed).
TEST(SelectiveCheckpointing, AResizeProductShiftsWhichProductsAreKept) {
  const Scenario s = parse_scenario_string(
      "model:\n  transformer: {layers: 2, layer_hidden: [512, 1024], heads: 8, vocab: 1000, "
      "sequence_length: 64, ffn_hidden: 0, mlp: gated}\ncluster: {preset: dgx-h100}\n"
      "training: {micro_batch: 1, checkpointing: selective}\n",
      "s.yaml");
  const double t = 64, h0 = 512, h = 1024, f = 4 * h;
  const Operator& att = named(s, "layer1.attention");
  // Resize 1 kept (h), Q 2, K 3 kept (h: no GQA), V 4, O 5 kept; flash output and log-sum-exp kept.
  EXPECT_EQ(att.selective_bytes_per_sample,
            2 * t * h0 + 2 * t * h + 2 * t * h + 2 * t * h + 2 * t * h + 4 * 8 * t);
  EXPECT_DOUBLE_EQ(att.selective_recompute_flops_per_sample, 2 * t * h * h * 2);
  const Operator& mlp = named(s, "layer1.mlp");
  EXPECT_EQ(mlp.selective_bytes_per_sample, 2 * t * f);
  EXPECT_DOUBLE_EQ(mlp.selective_recompute_flops_per_sample, 2 * t * h * f + 2 * t * f * h);
}

// The cost model keeps the selective bytes, rebuilds the rest while the operator runs its backward, and
// recomputes its share of the forward; the iteration program runs exactly that.
TEST(SelectiveCheckpointing, CostAndProgramKeepTheSelectiveBytesAndRecomputeTheirShare) {
  const Scenario s = llama("selective");
  const ValidScenario valid(s);
  const TopologyCostModel model(valid, Calibration{});
  OperatorChoice on{"", {G, G, G}, false, 1, 1, true};
  const std::size_t mlp = index_of(s, "layer0.mlp");
  const Operator& op = s.model.operators[mlp];
  const MemoryBreakdown m = model.memory(mlp, on, 2);
  EXPECT_EQ(m.activation_bytes, 2.0 * static_cast<double>(op.selective_bytes_per_sample));
  EXPECT_EQ(m.workspace_bytes,
            2.0 * static_cast<double>(op.workspace_bytes_per_sample + op.activation_bytes_per_sample -
                                      op.selective_bytes_per_sample));
  const double fraction = op.selective_recompute_flops_per_sample / op.forward_flops_per_sample;
  EXPECT_DOUBLE_EQ(model.recompute_fraction(mlp, on), fraction);
  EXPECT_NEAR(fraction, 1.0 / 3, 1e-12);  // one of the gated MLP's three equal products

  Plan plan;
  plan.micro_batch = 2;
  plan.group_size = 8;
  for (const Operator& o : s.model.operators) {
    OperatorChoice c = on;
    c.name = o.name;
    c.checkpoint = checkpoint_options(CheckpointPolicy::selective, o).front();
    plan.operators.push_back(c);
  }
  const IterationProgram program =
      build_iteration_program(valid, Calibration{}, plan, ProgramOptions{1, false});
  double forward = -1, recompute = -1;
  int head_recomputes = 0;
  for (const Task& task : program.tasks) {
    if (task.name == "fwd layer0.mlp") forward = task.compute_seconds;
    if (task.name == "recompute layer0.mlp") {
      recompute = task.compute_seconds;
      EXPECT_DOUBLE_EQ(task.slice_fraction, fraction);
    }
    if (task.name == "recompute head" || task.name == "recompute embedding") ++head_recomputes;
  }
  ASSERT_GT(forward, 0);
  EXPECT_DOUBLE_EQ(recompute, fraction * forward);
  EXPECT_EQ(head_recomputes, 0);
}

// Under selective every operator that recomputes something is checkpointed and the embedding and head are
// not; a plan that says otherwise is refused with the operator's field.
TEST(SelectiveCheckpointing, TheSearchCheckpointsTheBlocksAndNotTheEmbeddingOrHead) {
  const Scenario s = llama("selective");
  const SearchSpace space = full_space(s.training);
  for (const Operator& op : s.model.operators) {
    const bool block = op.kind == OperatorKind::attention || op.kind == OperatorKind::mlp;
    for (const OperatorChoice& c : enumerate_choices(space, op)) EXPECT_EQ(c.checkpoint, block) << op.name;
  }
}

// Other policies keep their numbers: the selective fields are read only under selective.
TEST(SelectiveCheckpointing, OtherPoliciesAndTheirDigestsAreUnchanged) {
  const Scenario all = llama("all");
  const TopologyCostModel model(ValidScenario(all), Calibration{});
  OperatorChoice on{"", {G, G, G}, false, 1, 1, true};
  const std::size_t att = index_of(all, "layer0.attention");
  EXPECT_EQ(model.kept_bytes_per_sample(att, on),
            static_cast<double>(all.model.operators[att].checkpoint_bytes_per_sample));
  EXPECT_EQ(model.recompute_fraction(att, on), 1.0);
  Scenario changed = all;
  changed.model.operators[att].selective_bytes_per_sample += 1;
  EXPECT_EQ(scenario_digest(all), scenario_digest(changed));
  Scenario selective = llama("selective");
  Scenario selective_changed = selective;
  selective_changed.model.operators[att].selective_bytes_per_sample += 1;
  EXPECT_NE(scenario_digest(selective), scenario_digest(selective_changed));
}

std::string error_of(const std::string& text) {
  try {
    parse_scenario_string(text, "s.yaml");
  } catch (const InputError& e) {
    return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
  }
  return "no error";
}

TEST(SelectiveCheckpointing, TheRefusalsNameTheirFieldAndLine) {
  EXPECT_EQ(
      error_of("model:\n  operators:\n    - {name: a, parameters: 10, paper: {gamma: 1ms, parameter_bytes: "
               "1MB, model_bytes: 8MB}}\ncluster: {preset: titan-rtx-8-pcie3}\n"
               "training: {checkpointing: selective}\n"
               "planner: {cost_model: paper, paper: {alpha: 10us, beta: 10GB/s}}\n"),
      "5 training.checkpointing: s.yaml:5: training.checkpointing: selective checkpointing needs the "
      "topology cost model; the paper model "
      "knows only whole-operator checkpointing (use all, none or search)");
  const std::string list =
      "model:\n  sequence_length: 8\n  operators:\n"
      "    - {name: a, parameters: 10, forward_flops_per_sample: 100, activation_bytes_per_sample: 80,\n";
  const std::string tail = "}\ncluster: {preset: dgx-h100}\ntraining: {checkpointing: selective}\n";
  EXPECT_NE(
      error_of(list + "       selective_bytes_per_sample: 40, selective_recompute_flops_per_sample: 200" +
               tail)
          .find("5 model.operators[0].selective_recompute_flops_per_sample"),
      std::string::npos);
  EXPECT_NE(error_of(list + "       selective_recompute_flops_per_sample: 50" + tail)
                .find("selective_bytes_per_sample"),
            std::string::npos);
  EXPECT_EQ(
      error_of(list + "       selective_bytes_per_sample: 40, selective_recompute_flops_per_sample: 50" +
               tail),
      "no error");
}

// Operators built in code reach validation without the parser's range checks.
TEST(SelectiveCheckpointing, CodeBuiltSelectiveFieldsOutOfRangeAreRefusedByValidation) {
  for (const auto& [bytes, flops, field] :
       {std::tuple{std::int64_t{-2}, 0.0, "selective_bytes_per_sample: expected a non-negative byte size"},
        {std::int64_t{0}, -2.0, "selective_recompute_flops_per_sample: expected a FLOP count"},
        {std::int64_t{0}, 1e30, "selective_recompute_flops_per_sample: expected a FLOP count"}}) {
    Scenario s = llama("selective");
    s.model.operators[1].selective_bytes_per_sample = bytes;
    s.model.operators[1].selective_recompute_flops_per_sample = flops;
    try {
      const ValidScenario valid(s);
      ADD_FAILURE() << "no error for " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("model.operators[1].") + field), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace shardscope
