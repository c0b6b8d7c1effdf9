// The loss as the training script computes it (execution.cross_entropy): PyTorch's unfused cross-entropy
// holds a second fp32 logit-sized gradient in the head's backward; fused (the default) keeps every number.
#include <gtest/gtest.h>

#include <string>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/program/memory_peak.hpp"

namespace shardscope {
namespace {

constexpr ShardScope G = ShardScope::G;

// Two Llama 3.1 8B blocks at 8,192 tokens with its 128,256-token vocabulary: the head's backward is the peak.
std::string llama_text(const std::string& execution) {
  return "model:\n  transformer: {layers: 2, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, "
         "vocab: 128256, sequence_length: 8192, mlp: gated, norm: rmsnorm, positions: rotary}\n"
         "cluster: {preset: dgx-h100}\ntraining: {micro_batch: 2, checkpointing: none}\n"
         "execution: {runtime: fsdp2" +
         execution + "}\n";
}

Scenario llama(const std::string& execution = "") {
  return parse_scenario_string(llama_text(execution), "s.yaml");
}

std::size_t head_of(const Scenario& s) { return s.model.operators.size() - 1; }

TEST(CrossEntropy, TheHeadsLossGradientIsItsFp32Logits) {
  const Scenario s = llama();
  const Operator& head = s.model.operators[head_of(s)];
  ASSERT_EQ(head.name, "head");
  EXPECT_EQ(head.loss_gradient_bytes_per_sample, std::int64_t{4} * 8192 * 128256);  // fp32, s x V
  EXPECT_EQ(head.workspace_bytes_per_sample, head.loss_gradient_bytes_per_sample);
  for (const Operator& op : s.model.operators) {
    if (&op != &head) EXPECT_EQ(op.loss_gradient_bytes_per_sample, 0) << op.name;
  }
}

TEST(CrossEntropy, PytorchsHoldsASecondGradientInTheHeadsBackward) {
  const Scenario fused = llama();
  const Scenario unfused = llama(", cross_entropy: pytorch");
  EXPECT_EQ(fused.execution.cross_entropy, CrossEntropy::fused);
  EXPECT_EQ(unfused.execution.cross_entropy, CrossEntropy::pytorch);
  const TopologyCostModel a(ValidScenario(fused), Calibration{});
  const TopologyCostModel b(ValidScenario(unfused), Calibration{});
  const OperatorChoice c{"", {G, G, G}, false, 1, 1, false};
  const std::size_t head = head_of(fused);
  const double gradient = 2.0 * 4 * 8192 * 128256;  // micro-batch 2
  EXPECT_EQ(a.memory(head, c, 2).workspace_bytes, gradient);
  EXPECT_EQ(b.memory(head, c, 2).workspace_bytes, 2 * gradient);
  EXPECT_EQ(a.memory(1, c, 2).workspace_bytes, b.memory(1, c, 2).workspace_bytes);  // not the head

  // The iteration program holds it too: its peak (the head's backward) grows by exactly one gradient.
  Plan plan;
  plan.micro_batch = 2;
  plan.group_size = 8;
  for (const Operator& op : fused.model.operators)
    plan.operators.push_back({op.name, {G, G, G}, false, 1, 1, false});
  const double fused_peak = program_peak_bytes(
      build_iteration_program(ValidScenario(fused), Calibration{}, plan, ProgramOptions{1, false}));
  const double unfused_peak = program_peak_bytes(
      build_iteration_program(ValidScenario(unfused), Calibration{}, plan, ProgramOptions{1, false}));
  EXPECT_NEAR(unfused_peak - fused_peak, gradient, 1e-9 * fused_peak);
}

TEST(CrossEntropy, FusedKeepsTheDigestAndPytorchChangesIt) {
  Scenario fused = llama();
  const Scenario stated = llama(", cross_entropy: fused");
  EXPECT_EQ(scenario_digest(fused), scenario_digest(stated));
  const std::uint64_t before = scenario_digest(fused);
  fused.model.operators[head_of(fused)].loss_gradient_bytes_per_sample += 1;  // not read when fused
  EXPECT_EQ(scenario_digest(fused), before);
  Scenario unfused = llama(", cross_entropy: pytorch");
  const std::uint64_t unfused_digest = scenario_digest(unfused);
  EXPECT_NE(unfused_digest, before);
  unfused.model.operators[head_of(unfused)].loss_gradient_bytes_per_sample += 1;
  EXPECT_NE(scenario_digest(unfused), unfused_digest);
}

std::string error_of(const std::string& text) {
  try {
    const Scenario s = parse_scenario_string(text, "s.yaml");
    const ValidScenario valid(s);
  } catch (const InputError& e) {
    return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
  }
  return "no error";
}

TEST(CrossEntropy, TheRefusalsNameTheirFieldAndLine) {
  EXPECT_NE(error_of(llama_text(", cross_entropy: chunked")).find("5 execution.cross_entropy"),
            std::string::npos);
  EXPECT_NE(
      error_of("model:\n  operators:\n    - {name: a, parameters: 10, paper: {gamma: 1ms, parameter_bytes: "
               "1MB, model_bytes: 8MB}}\ncluster: {preset: titan-rtx-8-pcie3}\n"
               "planner: {cost_model: paper, paper: {alpha: 10us, beta: 10GB/s}}\n"
               "execution: {cross_entropy: pytorch}\n")
          .find("execution.cross_entropy: s.yaml:6: execution.cross_entropy: cross_entropy pytorch needs the "
                "topology cost model"),
      std::string::npos);
  const std::string list =
      "model:\n  sequence_length: 8\n  operators:\n"
      "    - {name: a, parameters: 10, forward_flops_per_sample: 100, workspace_bytes_per_sample: 80,\n";
  const std::string tail = "}\ncluster: {preset: dgx-h100}\nexecution: {cross_entropy: pytorch}\n";
  EXPECT_NE(error_of(list + "       loss_gradient_bytes_per_sample: -1" + tail)
                .find("5 model.operators[0].loss_gradient_bytes_per_sample"),
            std::string::npos);
  EXPECT_EQ(error_of(list + "       loss_gradient_bytes_per_sample: 80" + tail), "no error");
}

TEST(CrossEntropy, ACodeBuiltNegativeLossGradientIsRefusedByValidation) {
  Scenario s = llama(", cross_entropy: pytorch");
  s.model.operators[head_of(s)].loss_gradient_bytes_per_sample = -4;
  try {
    const ValidScenario valid(s);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.operators[5].loss_gradient_bytes_per_sample: expected a "
                                         "non-negative byte size"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shardscope
