// Topology cost model by hand: PaRO memory shares, per-stage communication, checkpointing and slices.
#include "planner/cost/topology_cost.hpp"

#include <gtest/gtest.h>

#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

constexpr ShardScope N = ShardScope::N, I = ShardScope::I, G = ShardScope::G;

Scenario one_operator_on_4_nodes() {
  // One 1e9-parameter linear operator, 1e12 forward FLOPs per sample, on 4 x DGX-A100 (32 GPUs, groups of 8).
  return parse_scenario_string(
      "model:\n  operators:\n"
      "    - {name: w, kind: linear, parameters: 1000000000, forward_flops_per_sample: 1.0e12,\n"
      "       activation_bytes_per_sample: 1GB, checkpoint_bytes_per_sample: 100MB, "
      "workspace_bytes_per_sample: 10MB}\n"
      "cluster: {preset: dgx-a100, nodes: 4}\n"
      "training: {gradient_accumulation_steps: 2, group_size: 8}\n");
}

TEST(TopologyCost, MemorySharesFollowPaRoTable2) {
  const Scenario s = one_operator_on_4_nodes();
  const Calibration cal;
  const TopologyCostModel model(ValidScenario(s), cal);
  const MemoryBreakdown iig = model.memory(0, {"w", {I, I, G}, false, 1, 1, false}, 3);
  EXPECT_DOUBLE_EQ(iig.parameter_bytes, 2e9 / 8);
  EXPECT_DOUBLE_EQ(iig.gradient_bytes, 2e9 / 8);
  EXPECT_DOUBLE_EQ(iig.optimizer_bytes, 12e9 / 32);
  EXPECT_DOUBLE_EQ(iig.activation_bytes, 3e9);
  EXPECT_DOUBLE_EQ(iig.gathered_bytes, 2e9 + 2e9);  // full parameters and unreduced gradients in flight
  const MemoryBreakdown zpp = model.memory(0, {"w", {G, G, G}, true, 1, 1, false}, 1);
  EXPECT_DOUBLE_EQ(zpp.parameter_bytes, 2e9 / 32 + 2e9 / 8);  // ZeRO++: 2Psi/N + 2Psi/M
  const MemoryBreakdown ckpt = model.memory(0, {"w", {N, N, N}, false, 1, 0, true}, 2);
  EXPECT_DOUBLE_EQ(ckpt.activation_bytes, 2 * 1e8);
  EXPECT_DOUBLE_EQ(ckpt.workspace_bytes, 2 * 1e7 + 2 * 1e9);  // recomputed activations live during backward
  EXPECT_DOUBLE_EQ(ckpt.gathered_bytes, 0);
}

TEST(TopologyCost, CommunicationPerStageByHand) {
  const Scenario s = one_operator_on_4_nodes();
  const Calibration cal;
  const TopologyCostModel model(ValidScenario(s), cal);
  const CollectiveCost& cc = model.collectives();
  const double p = 2e9;  // bytes of 16-bit parameters (and gradients)
  using CK = CollectiveKind;
  // ZeRO-3 (GGG): per micro-step 2 global all-gathers + 1 global reduce-scatter; nothing at the update.
  const OperatorChoice zero3{"w", {G, G, G}, false, 1, 1, false};
  EXPECT_DOUBLE_EQ(model.per_micro_step_comm_seconds(zero3, 1e9, true),
                   2 * cc.seconds(CK::all_gather, GroupKind::global, p) +
                       cc.seconds(CK::reduce_scatter, GroupKind::global, p));
  EXPECT_DOUBLE_EQ(model.per_iteration_comm_seconds(zero3, 1e9, true), 0);
  // PaRO-IIG: intra gathers and reduce-scatters per micro-step; inter reduce-scatter and inter all-gather of
  // Psi/M.
  const OperatorChoice iig{"w", {I, I, G}, false, 1, 1, false};
  EXPECT_DOUBLE_EQ(model.per_micro_step_comm_seconds(iig, 1e9, true),
                   2 * cc.seconds(CK::all_gather, GroupKind::intra, p) +
                       cc.seconds(CK::reduce_scatter, GroupKind::intra, p));
  EXPECT_DOUBLE_EQ(model.per_iteration_comm_seconds(iig, 1e9, true),
                   cc.seconds(CK::reduce_scatter, GroupKind::inter, p / 8) +
                       cc.seconds(CK::all_gather, GroupKind::inter, p / 8));
  // DDP: one global all-reduce after accumulation. ZeRO-1: all-reduce, then all-gather of the updated
  // parameters.
  const OperatorChoice ddp{"w", {N, N, N}, false, 1, 1, false};
  EXPECT_DOUBLE_EQ(model.per_micro_step_comm_seconds(ddp, 1e9, true), 0);
  EXPECT_DOUBLE_EQ(model.per_iteration_comm_seconds(ddp, 1e9, true),
                   cc.seconds(CK::all_reduce, GroupKind::global, p));
  const OperatorChoice zero1{"w", {N, N, G}, false, 1, 1, false};
  EXPECT_DOUBLE_EQ(
      model.per_iteration_comm_seconds(zero1, 1e9, true),
      cc.seconds(CK::all_reduce, GroupKind::global, p) + cc.seconds(CK::all_gather, GroupKind::global, p));
  // MiCS (III): intra per micro-step, all-reduce of the Psi/M shard across groups at the update.
  const OperatorChoice mics{"w", {I, I, I}, false, 1, 1, false};
  EXPECT_DOUBLE_EQ(model.per_iteration_comm_seconds(mics, 1e9, true),
                   cc.seconds(CK::all_reduce, GroupKind::inter, p / 8));
  // A checkpointed sharded operator gathers once more for the recompute.
  const OperatorChoice zero3_ckpt{"w", {G, G, G}, false, 1, 1, true};
  EXPECT_DOUBLE_EQ(model.per_micro_step_comm_seconds(zero3_ckpt, 1e9, true),
                   3 * cc.seconds(CK::all_gather, GroupKind::global, p) +
                       cc.seconds(CK::reduce_scatter, GroupKind::global, p));
}

TEST(TopologyCost, IterationTimeAddsComputeOverMicroSteps) {
  const Scenario s = one_operator_on_4_nodes();
  const Calibration cal;
  const TopologyCostModel model(ValidScenario(s), cal);
  const OperatorChoice ddp{"w", {N, N, N}, false, 1, 0, false};
  const double rate = 312e12 * 0.6;
  const double compute = 3 * (1e12 + 2e12) / rate;  // b = 3: forward + backward
  const MemoryBreakdown m = model.memory(0, ddp, 3);
  const double update = 2 * (m.parameter_bytes + m.gradient_bytes + m.optimizer_bytes) / 2039e9;
  const double comm = model.collectives().seconds(CollectiveKind::all_reduce, GroupKind::global, 2e9);
  EXPECT_DOUBLE_EQ(model.cost(0, ddp, 3).seconds, 2 * compute + comm + update);
  EXPECT_DOUBLE_EQ(model.cost(0, ddp, 3).transient_bytes, 3 * 1e7);
}

TEST(CollectiveCalls, RingStepsAndTheReplicatedPart) {
  EXPECT_EQ(ring_steps(CollectiveKind::all_gather, 8), 7);
  EXPECT_EQ(ring_steps(CollectiveKind::reduce_scatter, 8), 7);
  EXPECT_EQ(ring_steps(CollectiveKind::all_reduce, 8), 14);
  EXPECT_EQ(ring_steps(CollectiveKind::all_reduce, 1), 0);
  const OperatorChoice split{"w", {I, I, G}, true, 4, 3, true};
  const OperatorChoice replicated = split.replicated_part();
  EXPECT_EQ(replicated.name, "w");
  EXPECT_EQ(replicated.scopes.name(), "NNN");
  EXPECT_FALSE(replicated.secondary_parameter_partition);
  EXPECT_EQ(replicated.slices, 1);
  EXPECT_EQ(replicated.sharded_slices, 0);
  EXPECT_TRUE(replicated.checkpoint);
}

TEST(CollectiveCalls, PaRoTable3ListsPerStage) {
  using Stage = CollectiveCall::Stage;
  const StateBytesPerParameter bytes;  // 2 + 2 + 12
  // ZeRO++ hpZ, checkpointed: forward gathers globally, recompute and backward from the intra-group shard.
  const auto zpp = micro_step_collectives({"w", {G, G, G}, true, 1, 1, true}, 1e9, true, bytes);
  ASSERT_EQ(zpp.size(), 4U);
  EXPECT_EQ(zpp[0].stage, Stage::forward_gather);
  EXPECT_EQ(zpp[0].group, GroupKind::global);
  EXPECT_EQ(zpp[1].stage, Stage::recompute_gather);
  EXPECT_EQ(zpp[1].group, GroupKind::intra);
  EXPECT_EQ(zpp[2].stage, Stage::backward_gather);
  EXPECT_EQ(zpp[2].group, GroupKind::intra);
  EXPECT_EQ(zpp[3].stage, Stage::gradient_reduce);
  EXPECT_EQ(zpp[3].kind, CollectiveKind::reduce_scatter);
  EXPECT_DOUBLE_EQ(zpp[3].total_bytes, 2e9);
  // A frozen operator reduces nothing and has nothing to do at the update.
  EXPECT_EQ(micro_step_collectives({"w", {N, G, G}, false, 1, 1, false}, 1e9, false, bytes).size(), 0U);
  EXPECT_TRUE(iteration_collectives({"w", {N, N, G}, false, 1, 1, false}, 1e9, false, bytes, 8).empty());
  // PaRO-NIG: inter-group reduce-scatter of Psi/M, then the rebuild inter-group (Psi/M) and intra-group.
  const auto nig = iteration_collectives({"w", {N, I, G}, false, 1, 1, false}, 1e9, true, bytes, 8);
  ASSERT_EQ(nig.size(), 3U);
  EXPECT_EQ(nig[0].stage, Stage::update_sync);
  EXPECT_EQ(nig[0].kind, CollectiveKind::reduce_scatter);
  EXPECT_EQ(nig[0].group, GroupKind::inter);
  EXPECT_DOUBLE_EQ(nig[0].total_bytes, 2e9 / 8);
  EXPECT_EQ(nig[1].stage, Stage::update_rebuild);
  EXPECT_EQ(nig[1].group, GroupKind::inter);
  EXPECT_DOUBLE_EQ(nig[1].total_bytes, 2e9 / 8);
  EXPECT_EQ(nig[2].group, GroupKind::intra);
  EXPECT_DOUBLE_EQ(nig[2].total_bytes, 2e9);
}

}  // namespace
}  // namespace shardscope
