// Gradients reduced in fp32 (execution.reduce_dtype): every gradient reduce-scatter and all-reduce moves
// 4 bytes per parameter, the parameter gathers and the memory stay; refusals, digest and the default.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

Scenario scenario(const std::string& execution, const std::string& planner = "") {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-a100, nodes: 2}\ntraining: {micro_batch: 2, precision: mixed-bf16}\nexecution: "
      "{" +
          execution + "}\n" + planner,
      "s.yaml");
}

std::vector<CollectiveCall> micro_calls(const std::string& execution, const OperatorChoice& choice) {
  const ValidScenario valid(scenario(execution));
  const TopologyCostModel model(valid, Calibration{}, CostModelOptions{});
  return model.micro_step_calls(choice, 1e6, true);
}

std::vector<CollectiveCall> iteration_calls(const std::string& execution, const OperatorChoice& choice) {
  const ValidScenario valid(scenario(execution));
  const TopologyCostModel model(valid, Calibration{}, CostModelOptions{});
  return iteration_collectives(choice, 1e6, true, model.state_bytes(), 8);
}

TEST(ReduceDtype, FpThirtyTwoDoublesEveryGradientReductionAndNothingElse) {
  OperatorChoice fsdp;  // GGG, checkpointed: forward, recompute and backward gathers, one reduce-scatter
  fsdp.checkpoint = true;
  const std::vector<CollectiveCall> bf16 = micro_calls("runtime: fsdp1", fsdp);
  const std::vector<CollectiveCall> fp32 = micro_calls("runtime: fsdp1, reduce_dtype: fp32", fsdp);
  ASSERT_EQ(bf16.size(), fp32.size());
  int reductions = 0;
  for (std::size_t i = 0; i < bf16.size(); ++i) {
    const bool reduce = bf16[i].kind == CollectiveKind::reduce_scatter;
    reductions += reduce ? 1 : 0;
    EXPECT_EQ(fp32[i].total_bytes, (reduce ? 4.0 : 2.0) * 1e6) << i;
    EXPECT_EQ(bf16[i].total_bytes, 2.0 * 1e6) << i;
  }
  EXPECT_EQ(reductions, 1);
  // DDP's all-reduce once per iteration and PaRO-IIG's inter-group reduction: 4 bytes per parameter too.
  OperatorChoice ddp;
  ddp.scopes = Scopes{ShardScope::N, ShardScope::N, ShardScope::N};
  EXPECT_EQ(iteration_calls("reduce_dtype: fp32", ddp).front().total_bytes, 4e6);
  EXPECT_EQ(iteration_calls("", ddp).front().total_bytes, 2e6);
  OperatorChoice iig;
  iig.scopes = Scopes{ShardScope::I, ShardScope::I, ShardScope::G};
  EXPECT_EQ(iteration_calls("reduce_dtype: fp32", iig).front().total_bytes, 4e6 / 8);
}

TEST(ReduceDtype, TheDefaultKeepsTheDigestAndFpThirtyTwoChangesIt) {
  const std::uint64_t plain = scenario_digest(scenario("runtime: fsdp2"));
  EXPECT_EQ(plain, scenario_digest(scenario("runtime: fsdp2, reduce_dtype: gradient")));
  EXPECT_NE(plain, scenario_digest(scenario("runtime: fsdp2, reduce_dtype: fp32")));
}

TEST(ReduceDtype, RefusalsNameTheField) {
  const auto error_of = [](const std::string& execution, const std::string& planner) {
    try {
      scenario(execution, planner);
    } catch (const InputError& e) {
      return e.field() + ": " + e.what();
    }
    return std::string("no error");
  };
  const std::string word = error_of("reduce_dtype: float32", "");
  EXPECT_NE(word.find("execution.reduce_dtype"), std::string::npos) << word;
  EXPECT_NE(word.find("gradient"), std::string::npos) << word;
  const std::string paper =
      error_of("reduce_dtype: fp32", "planner: {cost_model: paper, paper: {alpha: 1us, beta: 10GB/s}}\n");
  EXPECT_NE(paper.find("execution.reduce_dtype"), std::string::npos) << paper;
  EXPECT_NE(paper.find("fp32 needs the topology cost model"), std::string::npos) << paper;
}

}  // namespace
}  // namespace shardscope
