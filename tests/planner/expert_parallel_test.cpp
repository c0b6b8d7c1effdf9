// Expert parallelism: the sliced MoE operators against hand-derived numbers, the all-to-all's price, the
// expert replicas' collectives and memory, the refusals, plan files and the mesh search.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/mesh.hpp"
#include "planner/core/scenario.hpp"
#include "planner/core/transformer.hpp"
#include "planner/cost/all_to_all.hpp"
#include "planner/cost/collective_calls.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/mesh_exchanges.hpp"
#include "planner/report/mesh_search.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// A small Mixtral: h = 1024, 16 heads, 8 KV heads, f = 3584, SwiGLU, RMSNorm, no biases, 8 experts, top 2.
TransformerSpec moe() {
  TransformerSpec spec;
  spec.layers = 2;
  spec.hidden = 1024;
  spec.heads = 16;
  spec.kv_heads = 8;
  spec.ffn_hidden = 3584;
  spec.vocab = 32000;
  spec.sequence_length = 2048;
  spec.mlp = MlpKind::gated;
  spec.norm = NormKind::rmsnorm;
  spec.positions = PositionKind::rotary;
  spec.attention_bias = false;
  spec.mlp_bias = false;
  spec.tied_embeddings = false;
  spec.dropout = false;
  spec.experts = 8;
  spec.experts_per_token = 2;
  return spec;
}

const std::string kMoeModel =
    "model:\n  transformer: {layers: 2, hidden: 1024, heads: 16, kv_heads: 8, ffn_hidden: 3584, vocab: "
    "32000,\n"
    "    sequence_length: 2048, mlp: gated, norm: rmsnorm, positions: rotary, attention_bias: false,\n"
    "    mlp_bias: false, tied_embeddings: false, dropout: false, experts: 8, experts_per_token: 2}\n";

// Line 4 holds `parallelism` (the model takes lines 1-3).
Scenario moe_on_dgx(const std::string& parallelism, int nodes = 2, const std::string& training = "") {
  return parse_scenario_string(kMoeModel + parallelism +
                               "cluster: {preset: dgx-a100, nodes: " + std::to_string(nodes) + "}\n" +
                               "training: {micro_batch: 2" + training + "}\n");
}

const Operator& op(const Model& m, const std::string& name) {
  for (const Operator& o : m.operators)
    if (o.name == name) return o;
  throw std::logic_error("no operator " + name);
}

constexpr double kExpertParameters = 3.0 * 1024 * 3584;  // gate, up, down
constexpr double kRouter = 1024.0 * 8 + 1024;            // router weights and the MLP block's RMSNorm

TEST(ExpertParallel, EachGpuHoldsItsExpertsAndTheRouterStaysWithTheAttention) {
  const Model whole = generate_transformer(moe());
  const Model four = generate_transformer(moe(), TensorSlice{1, false, 1, 4});
  ASSERT_EQ(four.operators.size(), whole.operators.size());
  const Operator& experts = op(four, "layer0.mlp");
  EXPECT_TRUE(experts.expert_parallel);
  EXPECT_FALSE(op(four, "layer0.attention").expert_parallel);
  EXPECT_EQ(experts.parameters, static_cast<std::int64_t>(2 * kExpertParameters));  // 8 / 4 experts
  EXPECT_EQ(experts.active_parameters, static_cast<std::int64_t>(2 * kExpertParameters));
  EXPECT_EQ(op(four, "layer0.attention").parameters,
            op(whole, "layer0.attention").parameters + static_cast<std::int64_t>(kRouter));
  // Every GPU of a group holds one quarter of the experts and a copy of the rest: the whole model back.
  EXPECT_EQ(whole.parameters(), four.parameters() + 2 * 3 * static_cast<std::int64_t>(2 * kExpertParameters));
  // FLOPs: the router's on the attention; the experts' on the tokens received, k per token.
  const double s = 2048;
  EXPECT_DOUBLE_EQ(op(four, "layer0.attention").forward_flops_per_sample,
                   op(whole, "layer0.attention").forward_flops_per_sample + 2 * s * 1024 * 8);
  EXPECT_DOUBLE_EQ(experts.forward_flops_per_sample, 2 * s * 2 * kExpertParameters);
  EXPECT_DOUBLE_EQ(experts.backward_flops_per_sample, 2 * experts.forward_flops_per_sample);
  EXPECT_DOUBLE_EQ(whole.forward_flops_per_sample(), four.forward_flops_per_sample());
  // Kept: the 2 routed copies of each token (2 s h bytes each) and each copy's gate, up and product (3 s f).
  EXPECT_EQ(experts.activation_bytes_per_sample,
            static_cast<std::int64_t>(2 * (2 * s * 1024) + 2 * 3 * 2 * s * 3584));
  // With dropout the block's mask (s h bytes) is the experts operator's alone; the attention keeps the
  // norm's and the router's inputs (2 s h each) and the fp32 scores (4 s per expert).
  TransformerSpec dropout = moe();
  dropout.dropout = true;
  const Model whole_dropout = generate_transformer(dropout);
  const Model four_dropout = generate_transformer(dropout, TensorSlice{1, false, 1, 4});
  EXPECT_EQ(op(four_dropout, "layer0.attention").activation_bytes_per_sample -
                op(whole_dropout, "layer0.attention").activation_bytes_per_sample,
            static_cast<std::int64_t>(2 * (2 * s * 1024) + 4 * s * 8));
  EXPECT_EQ(op(four_dropout, "layer0.mlp").activation_bytes_per_sample - experts.activation_bytes_per_sample,
            static_cast<std::int64_t>(s * 1024));
}

TEST(ExpertParallel, TokensGoAndComeBackByAllToAllInEachPass) {
  const Model m = generate_transformer(moe(), TensorSlice{1, false, 1, 8, 1.25});
  const Operator& experts = op(m, "layer1.mlp");
  ASSERT_EQ(experts.tensor_collectives.size(), 4u);
  int backward = 0;
  for (const TensorCollective& c : experts.tensor_collectives) {
    EXPECT_TRUE(c.all_to_all);
    EXPECT_EQ(c.axis, MeshAxis::expert);
    EXPECT_FALSE(c.overlapped);
    // bf16 hidden state of each routed copy, the busiest GPU's 1.25 share: 2 x 2048 x 1024 x 2 x 1.25.
    EXPECT_DOUBLE_EQ(c.bytes_per_sample, 2.0 * 2048 * 1024 * 2 * 1.25);
    backward += c.backward ? 1 : 0;
  }
  EXPECT_EQ(backward, 2);
  // The imbalance multiplies the busiest GPU's work too.
  EXPECT_DOUBLE_EQ(experts.forward_flops_per_sample, 1.25 * 2 * 2048 * 2 * kExpertParameters);
}

TEST(ExpertParallel, AnAllToAllInsideANodeMovesSevenEighthsThroughEachNvlinkPort) {
  const Scenario s = moe_on_dgx("");
  const AllToAllLink link = all_to_all_link(s.cluster, Calibration{}, 8);
  const double nvlink = s.cluster.nvswitch.gpu_bytes_per_second;
  EXPECT_EQ(link.ranks, 8);
  EXPECT_DOUBLE_EQ(link.seconds_per_byte, 7.0 / 8 / nvlink);
  EXPECT_DOUBLE_EQ(link.alpha_seconds, s.cluster.nvswitch.latency_seconds);  // one NVSwitch crossing
  EXPECT_DOUBLE_EQ(link.seconds(1e9), link.alpha_seconds + 1e9 * 7.0 / 8 / nvlink);
  EXPECT_DOUBLE_EQ(link.seconds(0), 0.0);
  // Two groups of 4 in a node each send 3 / 4 of a buffer through each port.
  EXPECT_DOUBLE_EQ(all_to_all_link(s.cluster, Calibration{}, 4).seconds_per_byte, 3.0 / 4 / nvlink);
  EXPECT_DOUBLE_EQ(all_to_all_link(s.cluster, Calibration{}, 1).seconds(1e9), 0.0);
  EXPECT_THROW(all_to_all_link(s.cluster, Calibration{}, 3), std::invalid_argument);
}

TEST(ExpertParallel, AnAllToAllOverTwoNodesWaitsForEachRailsNic) {
  const Scenario s = moe_on_dgx("", 2);
  const AllToAllLink link = all_to_all_link(s.cluster, Calibration{}, 16);
  // Each GPU sends 8 of its 15 sixteenths to the other node over its rail's NIC (8 NICs, 25 GB/s each).
  EXPECT_DOUBLE_EQ(link.seconds_per_byte, 8.0 / 16 / s.cluster.network.nic_bytes_per_second);
  EXPECT_DOUBLE_EQ(link.alpha_seconds, s.cluster.network.latency_seconds);  // NIC to NIC, the longest path
}

TEST(ExpertParallel, TheExpertsReplicasAreTheInterGroup) {
  const StateBytesPerParameter bytes{2, 2, 12, 2};
  const OperatorChoice fsdp{"e", Scopes{ShardScope::G, ShardScope::G, ShardScope::G}, false, 1, 1, false};
  for (const CollectiveCall& call : micro_step_collectives(fsdp, 1e6, true, bytes, true, true))
    EXPECT_EQ(call.group, GroupKind::inter);
  EXPECT_EQ(micro_step_collectives(fsdp, 1e6, true, bytes, true, true).size(), 3u);  // AG fwd, AG bwd, RS
  // PaRO's I scope is N on an expert operator (its group holds other experts): IIG acts as ZeRO-1 there.
  const OperatorChoice iig{"e", Scopes{ShardScope::I, ShardScope::I, ShardScope::G}, true, 1, 1, false};
  const OperatorChoice acting = expert_parallel_choice(iig);
  EXPECT_EQ(acting.scopes.name(), "NNG");
  EXPECT_FALSE(acting.secondary_parameter_partition);
  EXPECT_TRUE(micro_step_collectives(iig, 1e6, true, bytes, true, true).empty());
  const std::vector<CollectiveCall> update = iteration_collectives(iig, 1e6, true, bytes, 4, true);
  ASSERT_EQ(update.size(), 2u);
  EXPECT_EQ(update[0].kind, CollectiveKind::all_reduce);
  EXPECT_EQ(update[0].group, GroupKind::inter);
  EXPECT_DOUBLE_EQ(update[0].total_bytes, 2e6);
  EXPECT_EQ(update[1].kind, CollectiveKind::all_gather);
  EXPECT_EQ(update[1].group, GroupKind::inter);
}

TEST(ExpertParallel, ExpertStatesShardOverTheGpusHoldingTheSameExperts) {
  const Scenario s = moe_on_dgx("parallelism: {expert: 4}\n");
  EXPECT_EQ(s.training.group_size, 4);
  EXPECT_EQ(mesh_text(s), "DP 16 with EP 4 (16 GPUs)");
  const ValidScenario valid{Scenario(s)};
  const TopologyCostModel model(valid, Calibration{});
  const std::size_t mlp = 2;  // embedding, layer0.attention, layer0.mlp
  ASSERT_TRUE(s.model.operators[mlp].expert_parallel);
  const double p = static_cast<double>(s.model.operators[mlp].parameters);
  const OperatorChoice ggg{"layer0.mlp", Scopes{ShardScope::G, ShardScope::G, ShardScope::G}, false, 1, 1,
                           false};
  const MemoryBreakdown m = model.memory(mlp, ggg, 2);
  const StateBytesPerParameter& b = model.state_bytes();
  // 16 GPUs, groups of 4: each expert on 4 GPUs, its states sharded 4 ways.
  EXPECT_DOUBLE_EQ(m.parameter_bytes, b.parameter * p / 4);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, b.optimizer * p / 4);
  const OperatorChoice iig{"layer0.mlp", Scopes{ShardScope::I, ShardScope::I, ShardScope::G}, false, 1, 1,
                           false};
  EXPECT_DOUBLE_EQ(model.memory(mlp, iig, 2).parameter_bytes, b.parameter * p);  // I is N here
  // Its collectives are priced on the inter group: the 4 GPUs at the same place in each group of 4.
  const double expected =
      model.collectives().seconds(CollectiveKind::all_gather, GroupKind::inter, b.parameter * p);
  EXPECT_EQ(model.collectives().group_ranks(GroupKind::inter), 4);
  double gathers = 0;
  for (const CollectiveCall& call : model.micro_step_calls(ggg, p, true, true))
    if (call.stage == CollectiveCall::Stage::forward_gather)
      gathers += model.collectives().seconds(call.kind, call.group, call.total_bytes);
  EXPECT_DOUBLE_EQ(gathers, expected);
}

TEST(ExpertParallel, TheAllToAllsAreOnTheCriticalPathOfTheExpertsPass) {
  const Scenario s = moe_on_dgx("parallelism: {expert: 8}\n");
  const MeshGroupCosts mesh = mesh_group_costs(s, Calibration{}, CollectiveModel::ring);
  ASSERT_NE(mesh.expert, nullptr);
  const ComputeModel priced(s.cluster, s.training.precision, Calibration{}, s.execution.runtime, {}, mesh);
  const Operator& experts = op(s.model, "layer0.mlp");
  Operator bare = experts;
  bare.tensor_collectives.clear();
  const double samples = 3;
  const double one = mesh.expert->seconds(experts.tensor_collectives[0].bytes_per_sample * samples);
  const ComputeModel::PassSeconds with = priced.pass_seconds(experts, samples, 1);
  const ComputeModel::PassSeconds without = priced.pass_seconds(bare, samples, 1);
  EXPECT_NEAR(with.forward - without.forward, 2 * one, 1e-12 * with.forward);
  EXPECT_NEAR(with.backward - without.backward, 2 * one, 1e-12 * with.backward);
  EXPECT_GT(one, 0);
  // Without an expert group the operator cannot be priced: a logic error, not a silent zero.
  const ComputeModel missing(s.cluster, s.training.precision, Calibration{}, s.execution.runtime, {}, {});
  EXPECT_THROW(missing.pass_seconds(experts, samples, 1), std::logic_error);
}

// The program's experts tasks carry their all-to-alls apart (mesh_exchanges.hpp): the dispatch before the
// kernels, the combine after, each at the planner's price with its latency, a slice's task 1 / slices of
// both; a recompute the forward's share; the router's (attention) task none.
TEST(MeshExchanges, TheExpertsTasksCarryTheirAllToAllsAtThePlannersPrice) {
  const Scenario s = moe_on_dgx("parallelism: {expert: 8}\n");
  const MeshGroupCosts mesh = mesh_group_costs(s, Calibration{}, CollectiveModel::ring);
  const ComputeModel priced(s.cluster, s.training.precision, Calibration{}, s.execution.runtime, {}, mesh);
  const Operator& experts = op(s.model, "layer0.mlp");
  const double samples = 3;
  const double bytes = experts.tensor_collectives[0].bytes_per_sample * samples;
  for (const int slices : {1, 4}) {
    const PassExchanges pass = mesh_exchanges(priced, experts, samples, slices);
    for (const auto* exchanges : {&pass.forward, &pass.backward}) {
      ASSERT_EQ(exchanges->size(), 2u);
      EXPECT_TRUE((*exchanges)[0].before);
      EXPECT_FALSE((*exchanges)[1].before);
      for (const MeshExchange& e : *exchanges) {
        EXPECT_TRUE(e.all_to_all);
        EXPECT_EQ(e.axis, MeshAxis::expert);
        EXPECT_EQ(e.group_ranks, 8);
        EXPECT_DOUBLE_EQ(e.bytes, bytes / slices);
        EXPECT_DOUBLE_EQ(e.seconds, mesh.expert->seconds(bytes) / slices);
        EXPECT_DOUBLE_EQ(e.latency_seconds, mesh.expert->alpha_seconds / slices);
        EXPECT_TRUE(e.runs_as_flows(16));
        EXPECT_FALSE(e.runs_as_flows(4));  // a larger group is timed as priced
      }
    }
    const std::vector<MeshExchange> again = scaled_exchanges(pass.forward, 0.25);
    EXPECT_DOUBLE_EQ(again[1].seconds, pass.forward[1].seconds / 4);
    EXPECT_DOUBLE_EQ(again[1].bytes, pass.forward[1].bytes / 4);
  }
  EXPECT_TRUE(mesh_exchanges(priced, op(s.model, "layer0.attention"), samples, 1).forward.empty());
  // An all-to-all that is all latency has nothing for flows to carry: the simulator times it.
  MeshExchange latency_only;
  latency_only.all_to_all = true;
  latency_only.group_ranks = 8;
  latency_only.bytes = 1;
  latency_only.seconds = latency_only.latency_seconds = 1e-5;
  EXPECT_FALSE(latency_only.runs_as_flows(16));
}

// Under tensor parallelism with sequence parallelism each pass gathers before its kernels and
// reduce-scatters after them; the program's compute task carries both at the tensor group's price.
TEST(MeshExchanges, TensorParallelTasksGatherBeforeAndReduceAfterTheirKernels) {
  const Scenario s = parse_scenario_string(
      kMoeModel.substr(0, kMoeModel.find(", experts: 8")) + "}\n" +
      "parallelism: {tensor: 4, sequence_parallel: true}\ncluster: {preset: dgx-a100, nodes: 1}\n"
      "training: {micro_batch: 2}\n");
  const MeshGroupCosts mesh = mesh_group_costs(s, Calibration{}, CollectiveModel::ring);
  const ComputeModel priced(s.cluster, s.training.precision, Calibration{}, s.execution.runtime, {}, mesh);
  const Operator& mlp = op(s.model, "layer0.mlp");
  const PassExchanges pass = mesh_exchanges(priced, mlp, 2, 1);
  ASSERT_FALSE(pass.forward.empty());
  double forward_seconds = 0;
  for (const MeshExchange& e : pass.forward) {
    EXPECT_EQ(e.axis, MeshAxis::tensor);
    EXPECT_EQ(e.before, e.kind == CollectiveKind::all_gather);
    EXPECT_FALSE(e.runs_as_flows(16));
    forward_seconds += e.seconds;
  }
  Operator bare = mlp;
  bare.tensor_collectives.clear();
  EXPECT_NEAR(priced.pass_seconds(mlp, 2, 1).forward - priced.pass_seconds(bare, 2, 1).forward,
              forward_seconds, 1e-12 * forward_seconds);
}

void expect_scenario_error(const std::string& parallelism, const std::string& field, const std::string& words,
                           const std::string& training = "") {
  try {
    moe_on_dgx(parallelism, 2, training);
    ADD_FAILURE() << "accepted " << parallelism << training;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(ExpertParallel, RefusalsNameTheFieldAndTheReason) {
  expect_scenario_error("parallelism: {expert: 3}\n", "parallelism.expert",
                        "does not divide the 8 data-parallel ranks of a node");
  expect_scenario_error("parallelism: {expert: 16}\n", "parallelism.expert", "does not divide the 8 experts");
  expect_scenario_error("parallelism: {expert: 2, tensor: 2}\n", "parallelism.expert",
                        "experts sliced by tensor parallelism too are not modelled");
  expect_scenario_error("parallelism: {expert: 4, expert_imbalance: 0.5}\n", "parallelism.expert_imbalance",
                        "");
  expect_scenario_error("parallelism: {expert: 4}\n", "training.group_size", "expert-parallel group",
                        ", group_size: 2");
  expect_scenario_error("parallelism: {expert: 0}\n", "parallelism.expert", "");
  try {
    parse_scenario_string(
        "model: {preset: llama3.1-8b}\ncluster: {preset: dgx-a100}\nparallelism: {expert: 2}\n");
    ADD_FAILURE() << "a dense model was split by experts";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "parallelism.expert");
    EXPECT_NE(std::string(e.what()).find("the model has no experts"), std::string::npos) << e.what();
  }
  // 8 experts over 2 nodes of 4 data-parallel ranks must take whole nodes; 3 nodes do not hold whole groups.
  Scenario s = moe_on_dgx("", 3);
  s.cluster.gpus_per_node = 4;
  s.training.group_size = 4;
  try {
    slice_scenario(s, TensorSlice{1, false, 1, 8});
    ADD_FAILURE() << "8 experts placed on 3 nodes of 4";
  } catch (const MeshError& e) {
    EXPECT_EQ(e.field(), "parallelism.expert");
    EXPECT_NE(std::string(e.what()).find("whole nodes"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(slice_scenario(s, TensorSlice{1, false, 1, 4}));
  // The group size equal to the expert-parallel group is accepted.
  EXPECT_NO_THROW(moe_on_dgx("parallelism: {expert: 4}\n", 2, ", group_size: 4"));
}

TEST(ExpertParallel, MeshSearchComparesEveryDegreeAndPicksTheFastest) {
  const Scenario whole = moe_on_dgx("parallelism: {expert: search}\n");
  PlanRequest request;
  request.with_baselines = false;
  const MeshSearch search = search_meshes(whole, Calibration{}, request);
  ASSERT_EQ(search.options.size(), 4u);  // 1, 2, 4, 8
  EXPECT_TRUE(search.refused.empty());
  ASSERT_TRUE(search.any_fits());
  for (std::size_t i = 0; i < search.options.size(); ++i) {
    const MeshOption& o = search.options[i];
    EXPECT_EQ(o.slice.expert, 1 << i);
    ASSERT_TRUE(o.report.best.fits);
    EXPECT_EQ(o.report.best.plan.tensor.expert, o.slice.expert);
    EXPECT_LE(o.report.best.plan.predicted.tokens_per_second,
              search.options[search.best].report.best.plan.predicted.tokens_per_second);
    // No expert operator of any plan names an I scope: its plan says what it does.
    for (std::size_t k = 0; k < o.report.best.plan.operators.size(); ++k) {
      if (!o.scenario.scenario().model.operators[k].expert_parallel) continue;
      EXPECT_EQ(o.report.best.plan.operators[k].scopes.name().find('I'), std::string::npos);
    }
  }
}

TEST(ExpertParallel, PlanFilesRecordTheDegreeAndAreCheckedAgainstIt) {
  const Scenario s = moe_on_dgx("parallelism: {expert: 4, expert_imbalance: 1.5}\n");
  PlanRequest request;
  request.with_baselines = false;
  const PlanReport report = plan_scenario(ValidScenario(Scenario(s)), Calibration{}, request);
  ASSERT_TRUE(report.best.fits);
  const std::string text = plan_json_text(report.best.plan);
  const Plan read = plan_from_json_string(text, "p.json", s.model);
  EXPECT_EQ(read.tensor.expert, 4);
  EXPECT_DOUBLE_EQ(read.tensor.expert_imbalance, 1.5);
  EXPECT_NO_THROW(check_plan_configuration(read, s, Calibration{}));
  const Scenario eight = moe_on_dgx("parallelism: {expert: 8, expert_imbalance: 1.5}\n");
  try {
    check_plan_configuration(read, eight, Calibration{});
    ADD_FAILURE() << "an EP 4 plan passed for EP 8";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "plan.mesh");
  }
  std::string edited = text;
  const std::size_t at = edited.find("\"expert_imbalance\": 1.5");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, 23, "\"expert_imbalance\": 0.5");
  EXPECT_THROW(plan_from_json_string(edited, "p.json", s.model), InputError);
  const Scenario search = moe_on_dgx("parallelism: {expert: search, expert_imbalance: 1.5}\n");
  EXPECT_EQ(scenario_for_plan_mesh(search, read.tensor).mesh.tensor.expert, 4);
}

}  // namespace
}  // namespace shardscope
