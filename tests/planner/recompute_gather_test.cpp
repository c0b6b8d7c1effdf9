// Whether a checkpointed operator's recompute gathers its parameters again before its backward gathers
// them (PaRO's Table 3, DeepSpeed) or one gather serves both (PyTorch FSDP1 and FSDP2): the calls, the
// program's tasks and the buffer held from the recompute to the end of the backward.
#include <gtest/gtest.h>

#include <string>

#include "planner/core/digest.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/collective_calls.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/runtime_profiles.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"

namespace shardscope {
namespace {

constexpr ShardScope G = ShardScope::G;

Scenario checkpointed(const std::string& runtime) {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 2, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-h100}\ntraining: {micro_batch: 2, checkpointing: all}\n"
      "execution: {runtime: " +
          runtime + "}\n",
      "s.yaml");
}

TEST(RecomputeGather, TheProfilesSayWhetherTheRecomputeGathersAgain) {
  EXPECT_TRUE(runtime_profile(RuntimeName::ideal).recompute_gathers_again);
  EXPECT_TRUE(runtime_profile(RuntimeName::deepspeed).recompute_gathers_again);
  EXPECT_FALSE(runtime_profile(RuntimeName::fsdp1).recompute_gathers_again);
  EXPECT_FALSE(runtime_profile(RuntimeName::fsdp2).recompute_gathers_again);
  Scenario s = checkpointed("fsdp2");
  const std::uint64_t shared = scenario_digest(s);
  s.execution.runtime.recompute_gathers_again = true;
  EXPECT_NE(scenario_digest(s), shared);
}

TEST(RecomputeGather, OneGatherServesRecomputeAndBackwardWhenTheFrameworkKeepsIt) {
  const StateBytesPerParameter state = state_bytes_per_parameter(Precision::mixed_bf16, OptimizerKind::adam);
  OperatorChoice c{"", {G, G, G}, false, 1, 1, true};
  auto gathers = [&](bool again) {
    int n = 0;
    for (const CollectiveCall& call : micro_step_collectives(c, 1000, true, state, again))
      n += call.kind == CollectiveKind::all_gather;
    return n;
  };
  EXPECT_EQ(gathers(true), 3);   // forward, recompute, backward
  EXPECT_EQ(gathers(false), 2);  // forward, recompute (= backward)
  c.checkpoint = false;
  EXPECT_EQ(gathers(false), 2);  // forward, backward: nothing changes without a recompute
}

// Per sharded checkpointed operator, the program issues 3 gathers under deepspeed and 2 under fsdp2; under
// fsdp2 the recompute's buffer is released by the backward, so the backward's memory holds it.
TEST(RecomputeGather, TheProgramHoldsTheRecomputesBufferThroughTheBackward) {
  for (const std::string runtime : {"deepspeed", "fsdp2"}) {
    const Scenario s = checkpointed(runtime);
    const ValidScenario valid(s);
    Plan plan;
    plan.micro_batch = 2;
    plan.group_size = 8;
    for (const Operator& op : s.model.operators)
      plan.operators.push_back({op.name, {G, G, G}, false, 1, 1, true});
    const IterationProgram program =
        build_iteration_program(valid, Calibration{}, plan, ProgramOptions{1, false});
    int gathers = 0;
    double gathered_by_recompute = -1, freed_by_recompute = -1, freed_by_backward = -1;
    const std::size_t gathered = index_of(MemoryCategory::gathered);
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const Task& task = program.tasks[i];
      if (task.name == "AG layer1.mlp") ++gathers;
      if (task.name == "recompute layer1.mlp") {
        gathered_by_recompute =
            program.tasks[static_cast<std::size_t>(task.wait_for_other)].alloc_at_start[gathered];
        freed_by_recompute = task.free_at_end[gathered];
      }
      if (task.name == "bwd layer1.mlp") freed_by_backward = task.free_at_end[gathered];
    }
    const double buffer = 2.0 * static_cast<double>(s.model.operators[4].parameters);  // bf16 working copy
    ASSERT_EQ(s.model.operators[4].name, "layer1.mlp");
    EXPECT_EQ(gathered_by_recompute, buffer) << runtime;
    EXPECT_EQ(freed_by_backward, buffer) << runtime;  // its backward gather's buffer, or the recompute's
    if (runtime == "deepspeed") {
      EXPECT_EQ(gathers, 3);
      EXPECT_EQ(freed_by_recompute, buffer);
    } else {
      EXPECT_EQ(gathers, 2);
      EXPECT_EQ(freed_by_recompute, 0);
      EXPECT_GE(freed_by_backward,
                buffer);  // its own buffer, and the gradient buffer is not in `gathered` yet
    }
  }
}

}  // namespace
}  // namespace shardscope
