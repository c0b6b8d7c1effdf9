// Tensor parallelism (Megatron 1-D, sequence parallelism): the sliced operators against hand-derived numbers,
// the data-parallel cluster, the refusals, the collectives' price, the scenario key and the mesh search.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/mesh.hpp"
#include "planner/core/scenario.hpp"
#include "planner/core/transformer.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/mesh_search.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// GPT-style: h = 1024, a = 16, s = 2048, V = 51200, f = 4h, LayerNorm, biases, dropout, no flash attention.
TransformerSpec gpt() {
  TransformerSpec spec;
  spec.layers = 2;
  spec.hidden = 1024;
  spec.heads = 16;
  spec.vocab = 51200;
  spec.sequence_length = 2048;
  spec.flash_attention = false;
  return spec;
}

const Operator& op(const Model& m, const std::string& name) {
  for (const Operator& o : m.operators)
    if (o.name == name) return o;
  throw std::logic_error("no operator " + name);
}

double layer_activation_bytes(const Model& m) {
  return static_cast<double>(op(m, "layer0.attention").activation_bytes_per_sample +
                             op(m, "layer0.mlp").activation_bytes_per_sample);
}

TEST(TensorParallel, SlicesAttentionAndMlpAsMegatron) {
  const Model m = generate_transformer(gpt(), TensorSlice{4, false});
  const double h = 1024, s = 2048;
  // Norm (2h) and the output bias (h) whole; Q, K, V and O weights and the QKV biases divided by 4.
  EXPECT_EQ(op(m, "layer0.attention").parameters, 2 * 1024 + 1024 * 1024 + 3 * 1024 / 4 + 1024);
  // Norm (2h) and the down bias (h) whole; up and down weights and the up bias divided by 4.
  EXPECT_EQ(op(m, "layer0.mlp").parameters, 2 * 1024 + 2 * 1024 * 4096 / 4 + 4096 / 4 + 1024);
  EXPECT_DOUBLE_EQ(op(m, "layer0.attention").forward_flops_per_sample, 2 * s * h * h + 4 * s * s * h / 4);
  EXPECT_DOUBLE_EQ(op(m, "layer0.mlp").forward_flops_per_sample, 2 * s * 8 * h * h / 4);
  // Vocabulary-parallel: 12,800 rows of the table, the learned positions whole; the head's product too.
  EXPECT_EQ(op(m, "embedding").parameters, 12800 * 1024 + 2048 * 1024);
  EXPECT_DOUBLE_EQ(op(m, "head").forward_flops_per_sample, 2 * s * h * 12800);
}

TEST(TensorParallel, ActivationsAreKorthikantisWithAndWithoutSequenceParallelism) {
  const double sh = 2048.0 * 1024, as_over_h = 16.0 * 2048 / 1024;
  // Korthikanti et al. 2022, bytes per layer per sample: sh(34 + 5as/h) whole, sh(10 + 24/t + 5as/(ht))
  // under TP t, sh(34 + 5as/h)/t with sequence parallelism.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(generate_transformer(gpt())), sh * (34 + 5 * as_over_h));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(generate_transformer(gpt(), {4, false})),
                   sh * (10 + 24.0 / 4 + 5 * as_over_h / 4));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(generate_transformer(gpt(), {4, true})),
                   sh * (34 + 5 * as_over_h) / 4);
}

TEST(TensorParallel, DTensorKeepsTheGatheredInputOfEachBlock) {
  // PyTorch's DTensor plans keep the all-gathered input of the QKV and the up projections (2sh bytes each,
  // whole) where Megatron-LM keeps the shard: 2 x 2sh(1 - 1/t) more per layer and sample, and no separate
  // transient for the gathered input.
  const double sh = 2048.0 * 1024, as_over_h = 16.0 * 2048 / 1024;
  const TensorParallelStyle dtensor{true};
  const Model kept = generate_transformer(gpt(), {4, true}, dtensor);
  const Model megatron = generate_transformer(gpt(), {4, true});
  EXPECT_DOUBLE_EQ(layer_activation_bytes(kept), sh * (34 + 5 * as_over_h) / 4 + 2 * 2 * sh * (1 - 1.0 / 4));
  for (const char* name : {"layer0.attention", "layer0.mlp", "head"}) {
    EXPECT_EQ(op(kept, name).workspace_bytes_per_sample + 2 * 2048 * 1024,
              op(megatron, name).workspace_bytes_per_sample)
        << name;
    EXPECT_EQ(op(kept, name).tensor_collectives.size(), op(megatron, name).tensor_collectives.size());
  }
  EXPECT_EQ(op(kept, "head").activation_bytes_per_sample,
            op(megatron, "head").activation_bytes_per_sample + 2 * 2048 * 1024 * 3 / 4);
  // Without sequence parallelism the input is whole either way.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(generate_transformer(gpt(), {4, false}, dtensor)),
                   layer_activation_bytes(generate_transformer(gpt(), {4, false})));
  // The runtime profiles say which: PyTorch's (fsdp1, fsdp2) keep it, DeepSpeed's Megatron-LM does not.
  const auto sliced_under = [](const std::string& runtime) {
    return parse_scenario_string(
        "model: {preset: llama3.1-8b}\ncluster: {preset: dgx-a100}\n"
        "parallelism: {tensor: 2, sequence_parallel: true}\nexecution: {runtime: " +
        runtime + "}\n");
  };
  for (const char* runtime : {"fsdp1", "fsdp2"}) {
    EXPECT_GT(sliced_under(runtime).model.operators[1].activation_bytes_per_sample,
              sliced_under("deepspeed").model.operators[1].activation_bytes_per_sample);
  }
  EXPECT_EQ(sliced_under("ideal").model.operators[1].activation_bytes_per_sample,
            sliced_under("deepspeed").model.operators[1].activation_bytes_per_sample);
}

TEST(TensorParallel, BlocksCommunicateTwiceAPassAsMegatron) {
  const double block = 2.0 * 2048 * 1024;  // the s x h activation in bf16
  const Model two = generate_transformer(gpt(), {2, false});
  const Model two_sp = generate_transformer(gpt(), {2, true});
  const Model whole = generate_transformer(gpt());
  const Operator& plain = op(two, "layer1.mlp");
  ASSERT_EQ(plain.tensor_collectives.size(), 2u);
  EXPECT_EQ(plain.tensor_collectives[0].kind, CollectiveKind::all_reduce);
  EXPECT_FALSE(plain.tensor_collectives[0].backward);
  EXPECT_TRUE(plain.tensor_collectives[1].backward);
  EXPECT_DOUBLE_EQ(plain.tensor_collectives[1].bytes_per_sample, block);
  const Operator& sp = op(two_sp, "layer1.attention");
  ASSERT_EQ(sp.tensor_collectives.size(), 4u);
  EXPECT_EQ(sp.tensor_collectives[0].kind, CollectiveKind::all_gather);
  EXPECT_EQ(sp.tensor_collectives[1].kind, CollectiveKind::reduce_scatter);
  EXPECT_TRUE(sp.tensor_collectives[3].backward);
  // The head: its input gradient reduced, and the vocabulary-parallel loss's three fp32 reductions per token.
  const Operator& head = op(two, "head");
  ASSERT_EQ(head.tensor_collectives.size(), 4u);
  EXPECT_DOUBLE_EQ(head.tensor_collectives[0].bytes_per_sample, block);
  EXPECT_DOUBLE_EQ(head.tensor_collectives[3].bytes_per_sample, 4.0 * 2048);
  EXPECT_TRUE(whole.operators[1].tensor_collectives.empty());
}

void expect_refused(const TransformerSpec& spec, TensorSlice slice, const std::string& field,
                    const std::string& words) {
  try {
    generate_transformer(spec, slice);
    ADD_FAILURE() << "accepted degree " << slice.degree;
  } catch (const TransformerSpecError& e) {
    EXPECT_EQ(e.field(), field);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(TensorParallel, RefusesSlicesTheModelDoesNotDivide) {
  TransformerSpec twelve = gpt();
  twelve.heads = 8;
  expect_refused(twelve, {16, false}, "tensor", "does not divide the 8 attention heads");
  TransformerSpec grouped = gpt();
  grouped.kv_heads = 2;
  expect_refused(grouped, {4, false}, "tensor", "does not divide the 2 KV heads");
  TransformerSpec odd = gpt();
  odd.sequence_length = 2050;
  expect_refused(odd, {4, true}, "sequence_parallel", "2050 tokens");
  expect_refused(gpt(), {1, true}, "sequence_parallel", "tensor degree above 1");
  TransformerSpec widths = gpt();
  widths.layer_hidden = {1024, 2048};
  expect_refused(widths, {2, true}, "sequence_parallel", "per-layer widths is sliced without it");
}

// OSDP's I&C models (per-layer widths) slice each layer at its own width; the projection where the width
// changes stays whole on every GPU (its weights, its FLOPs on the whole sequence).
TEST(TensorParallel, PerLayerWidthsSliceEachLayerAtItsWidth) {
  TransformerSpec widths = gpt();
  widths.layer_hidden = {1024, 2048};
  const Model whole = generate_transformer(widths);
  const Model two = generate_transformer(widths, TensorSlice{2, false});
  const double h = 2048, s = 2048;
  // Attention: norm 2h, Q/K/V/O 4h^2 (divided), Q/K/V biases 3h (divided), the output's h and the resize
  // h_prev*h + h (whole).
  EXPECT_EQ(op(two, "layer1.attention").parameters,
            op(whole, "layer1.attention").parameters - static_cast<std::int64_t>(2 * h * h + 1.5 * h));
  EXPECT_DOUBLE_EQ(op(whole, "layer1.attention").forward_flops_per_sample -
                       op(two, "layer1.attention").forward_flops_per_sample,
                   (2 * s * 4 * h * h + 4 * s * s * h) / 2);
  // MLP: up h x 4h and down 4h x h divided, with the up bias; the down bias whole.
  EXPECT_EQ(op(two, "layer1.mlp").parameters,
            op(whole, "layer1.mlp").parameters - static_cast<std::int64_t>(4 * h * h + 2 * h));
  EXPECT_EQ(op(two, "layer0.mlp").parameters,
            op(whole, "layer0.mlp").parameters - static_cast<std::int64_t>(4 * 1024.0 * 1024 + 2 * 1024));
  // Each block all-reduces its own width's activation.
  EXPECT_DOUBLE_EQ(op(two, "layer1.mlp").tensor_collectives.front().bytes_per_sample, 2 * s * h);
  EXPECT_DOUBLE_EQ(op(two, "layer0.mlp").tensor_collectives.front().bytes_per_sample, 2 * s * 1024);
}

Scenario llama_on_dgx(const std::string& parallelism) {
  return parse_scenario_string("model: {preset: llama3.1-8b}\ncluster: {preset: dgx-a100, nodes: 2}\n" +
                               parallelism +
                               "training: {gradient_accumulation_steps: 2, max_micro_batch: 4}\n"
                               "execution: {runtime: fsdp2}\n");
}

TEST(TensorParallel, TheDataParallelClusterSharesEachNodesLinks) {
  const Scenario s = llama_on_dgx("");
  const Cluster two = data_parallel_cluster(s.cluster, 2);
  EXPECT_EQ(two.gpus_per_node, 4);
  EXPECT_EQ(two.network.nics_per_node, 4);  // 8 rails: 4 for each TP index's ranks
  EXPECT_EQ(two.network.nic_bytes_per_second, s.cluster.network.nic_bytes_per_second);
  Cluster one_nic = s.cluster;
  one_nic.network.nics_per_node = 1;
  EXPECT_DOUBLE_EQ(data_parallel_cluster(one_nic, 4).network.nic_bytes_per_second,
                   s.cluster.network.nic_bytes_per_second / 4);
  EXPECT_THROW(data_parallel_cluster(s.cluster, 3), MeshError);
  EXPECT_EQ(data_parallel_cluster(s.cluster, 16).nodes, 1);       // whole nodes, asked for
  EXPECT_THROW(data_parallel_cluster(s.cluster, 32), MeshError);  // more nodes than the cluster's 2
}

TEST(TensorParallel, ThePcieTreeKeepsEachGpuLinkAndSharesTheUplinks) {
  const Scenario s =
      parse_scenario_string("model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n");
  const PcieTopology& p = s.cluster.pcie;
  const Cluster two = data_parallel_cluster(s.cluster, 2);
  EXPECT_EQ(two.pcie.gpus_per_switch, p.gpus_per_switch / 2);
  EXPECT_EQ(two.pcie.gpu_link_bytes_per_second, p.gpu_link_bytes_per_second);
  EXPECT_DOUBLE_EQ(two.pcie.switch_uplink_bytes_per_second, p.switch_uplink_bytes_per_second / 2);
  EXPECT_DOUBLE_EQ(two.pcie.inter_socket_bytes_per_second, p.inter_socket_bytes_per_second / 2);
  // TP 4 spans the two switches of a socket: one rank per socket, each on its own switch whose uplink it
  // shares with the other family on that switch; the socket link carries all four families.
  const Cluster four = data_parallel_cluster(s.cluster, 4);
  EXPECT_EQ(four.gpus_per_node, 2);
  EXPECT_EQ(four.pcie.sockets, 2);
  EXPECT_EQ(four.pcie.switches_per_socket, 1);
  EXPECT_EQ(four.pcie.gpus_per_switch, 1);
  EXPECT_EQ(four.pcie.gpu_link_bytes_per_second, p.gpu_link_bytes_per_second);
  EXPECT_DOUBLE_EQ(four.pcie.switch_uplink_bytes_per_second, p.switch_uplink_bytes_per_second / 2);
  EXPECT_DOUBLE_EQ(four.pcie.inter_socket_bytes_per_second, p.inter_socket_bytes_per_second / 4);
  EXPECT_EQ(link_class_between(four, 0, 1), LinkClass::cross_socket);
  // TP 8 spans both sockets: one rank per node, nothing data-parallel left inside it.
  const Cluster eight = data_parallel_cluster(s.cluster, 8);
  EXPECT_EQ(eight.gpus_per_node, 1);
  EXPECT_EQ(eight.pcie.sockets, 1);
  EXPECT_EQ(eight.pcie.switches_per_socket, 1);
  EXPECT_DOUBLE_EQ(eight.pcie.inter_socket_bytes_per_second, p.inter_socket_bytes_per_second / 4);
}

TEST(TensorParallel, APcieTreeRefusesGroupsThatCutASwitchOrASocketUnevenly) {
  Cluster c =
      parse_scenario_string("model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n").cluster;
  c.gpus_per_node = 12;  // 2 sockets x 2 switches x 3 GPUs
  c.pcie.gpus_per_switch = 3;
  const auto refusal = [&](int degree) {
    try {
      data_parallel_cluster(c, degree);
    } catch (const MeshError& e) {
      EXPECT_EQ(e.field(), "parallelism.tensor");
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(2), "tensor-parallel degree 2 does not divide the 3 GPUs under one PCIe switch");
  EXPECT_EQ(refusal(4), "tensor-parallel degree 4 does not divide into whole PCIe switches of 3 GPUs");
  EXPECT_EQ(data_parallel_cluster(c, 6).gpus_per_node, 2);
  EXPECT_EQ(data_parallel_cluster(c, 12).gpus_per_node, 1);
  Cluster three_switches = c;  // 2 sockets x 3 switches x 2 GPUs
  three_switches.pcie.gpus_per_switch = 2;
  three_switches.pcie.switches_per_socket = 3;
  c.pcie.sockets = 6;  // 6 sockets x 2 switches x 3 GPUs: 12 GPUs span two sockets, 18 three
  c.gpus_per_node = 36;
  EXPECT_EQ(refusal(9), "tensor-parallel degree 9 does not divide into whole sockets of 6 GPUs");
  c = three_switches;
  EXPECT_EQ(refusal(4), "tensor-parallel degree 4 does not divide the 6 GPUs of one socket");
  c.pcie.gpus_per_switch = 3;
  c.pcie.switches_per_socket = 2;
  c.pcie.sockets = 6;
  c.gpus_per_node = 36;
  EXPECT_EQ(data_parallel_cluster(c, 12).pcie.sockets, 3);
  EXPECT_EQ(data_parallel_cluster(c, 18).pcie.sockets, 2);
}

TEST(TensorParallel, ScenarioKeySlicesTheModelAndTheCluster) {
  const Scenario s = llama_on_dgx("parallelism: {tensor: 2, sequence_parallel: true}\n");
  ASSERT_TRUE(s.mesh.sliced());
  EXPECT_EQ(s.cluster.gpus(), 8);
  EXPECT_EQ(physical_gpus(s), 16);
  EXPECT_EQ(s.training.group_size, 4);
  EXPECT_EQ(mesh_text(s), "TP 2 + SP x DP 8 (16 GPUs)");
  const Scenario whole = llama_on_dgx("");
  EXPECT_LT(static_cast<double>(s.model.parameters()), static_cast<double>(whole.model.parameters()) * 0.51);
  EXPECT_DOUBLE_EQ(whole_model_parameters(s), static_cast<double>(whole.model.parameters()));
  const Scenario search = llama_on_dgx("parallelism: {tensor: search}\n");
  EXPECT_TRUE(search.parallelism.search());
  EXPECT_FALSE(search.mesh.sliced());
}

void expect_scenario_error(const std::string& parallelism, const std::string& field, int line,
                           const std::string& words) {
  try {
    llama_on_dgx(parallelism);
    ADD_FAILURE() << "accepted " << parallelism;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(TensorParallel, ScenarioErrorsNameTheField) {
  expect_scenario_error("parallelism: {tensor: 3}\n", "parallelism.tensor", 3, "does not divide the 8 GPUs");
  expect_scenario_error("parallelism: {tensor: 16}\n", "parallelism.tensor", 3,
                        "does not divide the 8 KV heads");
  expect_scenario_error("parallelism: {tensor: 24}\n", "parallelism.tensor", 3, "spans nodes");
  expect_scenario_error("parallelism: {tensor: 0}\n", "parallelism.tensor", 3, "");
  expect_scenario_error("parallelism: {tensor: two}\n", "parallelism.tensor", 3, "");
  expect_scenario_error("parallelism: {tensr: 2}\n", "parallelism.tensr", 3, "unknown");
  expect_scenario_error("parallelism: {sequence_parallel: true}\n", "parallelism.sequence_parallel", 3,
                        "above 1");
  try {
    parse_scenario_string(
        "model:\n  operators:\n    - {name: a, kind: linear, parameters: 1000, forward_flops_per_sample: "
        "1e6, "
        "activation_bytes_per_sample: 100}\ncluster: {preset: dgx-a100}\nparallelism: {tensor: 2}\n");
    ADD_FAILURE() << "an operator list was sliced";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("list of operators"), std::string::npos) << e.what();
  }
}

// A degree asked for above a node's GPUs takes whole nodes: one data-parallel rank per TP group, on one node
// of it with its share of that node's NICs; the TP collectives cross the network; a search never tries it.
TEST(TensorParallel, AGroupAskedForMaySpanWholeNodes) {
  const auto llama7b = [](const std::string& parallelism, int nodes, const std::string& training = "") {
    return parse_scenario_string(
        "model: {preset: llama-7b}\ncluster: {preset: dgx-a100, nodes: " + std::to_string(nodes) + "}\n" +
        parallelism + "training: {max_micro_batch: 4" + training + "}\n");
  };
  const Scenario s = llama7b("parallelism: {tensor: 16}\n", 4);
  ASSERT_TRUE(s.mesh.sliced());
  EXPECT_EQ(s.cluster.nodes, 2);
  EXPECT_EQ(s.cluster.gpus_per_node, 1);
  EXPECT_EQ(s.cluster.network.nics_per_node, 1);  // one of the node's 8 rails
  EXPECT_EQ(s.training.group_size, 1);            // PaRO's group: one TP group
  EXPECT_EQ(mesh_text(s), "TP 16 x DP 2 (32 GPUs)");
  const std::shared_ptr<const CollectiveCost> tp =
      mesh_group_costs(s, Calibration{}, CollectiveModel::ring).tensor;
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->group_ranks(GroupKind::intra), 16);
  EXPECT_EQ(tp->ring(GroupKind::intra).bottleneck, LinkClass::network);
  PlanRequest request;
  request.with_baselines = false;
  EXPECT_TRUE(plan_scenario(ValidScenario(Scenario(s)), Calibration{}, request).best.fits);
  // Refused: groups the nodes do not hold whole, a group size that is not whole groups, CP beside it.
  const auto refused = [&](const std::string& parallelism, int nodes, const std::string& training,
                           const std::string& field, const std::string& words) {
    try {
      llama7b(parallelism, nodes, training);
      ADD_FAILURE() << "accepted " << parallelism << training;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused("parallelism: {tensor: 16}\n", 3, "", "parallelism.tensor", "the 3 nodes must hold whole groups");
  refused("parallelism: {tensor: 12}\n", 4, "", "parallelism.tensor", "a multiple of the 8 GPUs of a node");
  refused("parallelism: {tensor: 16}\n", 4, ", group_size: 4", "training.group_size",
          "tensor-parallel groups of 16");
  refused("parallelism: {tensor: 16, context: 2}\n", 4, "", "parallelism.tensor",
          "across nodes is not modelled");
  EXPECT_NO_THROW(llama7b("parallelism: {tensor: 16}\n", 4, ", group_size: 32"));
  // A search stays inside a node.
  for (const TensorSlice& slice : candidate_slices(llama7b("parallelism: {tensor: search}\n", 4), nullptr))
    EXPECT_LE(slice.degree, 8);
}

TEST(TensorParallel, CollectivesArePricedOnThePhysicalNodesGroups) {
  const Scenario s = llama_on_dgx("parallelism: {tensor: 2, sequence_parallel: true}\n");
  const std::shared_ptr<const CollectiveCost> group =
      mesh_group_costs(s, Calibration{}, CollectiveModel::ring).tensor;
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->group_ranks(GroupKind::intra), 2);
  const ComputeModel priced(s.cluster, s.training.precision, Calibration{}, s.execution.runtime, {},
                            {group, nullptr});
  const Operator& attention = s.model.operators[1];
  Operator bare = attention;
  bare.tensor_collectives.clear();
  const double samples = 3;
  double forward = 0, backward = 0;
  for (const TensorCollective& c : attention.tensor_collectives) {
    // One ring step of half the buffer each over NVLink (2 GPUs): alpha + (B/2) / bandwidth.
    const RingLink& ring = group->ring(GroupKind::intra);
    const double seconds =
        alpha_beta_seconds(ring.alpha_seconds, 1, c.bytes_per_sample * samples / 2, ring.bytes_per_second);
    EXPECT_DOUBLE_EQ(group->seconds(c.kind, GroupKind::intra, c.bytes_per_sample * samples), seconds);
    (c.backward ? backward : forward) += seconds;
  }
  const ComputeModel::PassSeconds with = priced.pass_seconds(attention, samples, 1);
  const ComputeModel::PassSeconds without = priced.pass_seconds(bare, samples, 1);
  EXPECT_DOUBLE_EQ(with.forward - without.forward, forward);
  EXPECT_DOUBLE_EQ(with.backward - without.backward, backward);
  EXPECT_GT(forward, 0);
}

TEST(TensorParallel, MeshSearchPlansEveryDegreeAndPicksTheFastest) {
  const Scenario whole = llama_on_dgx("parallelism: {tensor: search, sequence_parallel: true}\n");
  PlanRequest request;
  request.with_baselines = false;
  const MeshSearch search = search_meshes(whole, Calibration{}, request);
  ASSERT_EQ(search.options.size(), 4u);  // 1, 2, 4, 8 (8 KV heads)
  EXPECT_TRUE(search.refused.empty());
  for (std::size_t i = 0; i < search.options.size(); ++i) {
    const MeshOption& o = search.options[i];
    EXPECT_EQ(o.scenario.scenario().mesh.tensor.degree, o.slice.degree);
    if (!o.report.best.fits) continue;
    EXPECT_EQ(o.report.best.plan.tensor.degree, o.slice.degree);
    EXPECT_LE(o.report.best.plan.predicted.tokens_per_second,
              search.options[search.best].report.best.plan.predicted.tokens_per_second);
  }
  EXPECT_TRUE(search.any_fits());
}

TEST(TensorParallel, PlanFilesRecordTheMeshAndAreCheckedAgainstIt) {
  const Scenario s = llama_on_dgx("parallelism: {tensor: 2, sequence_parallel: true}\n");
  const ValidScenario valid{Scenario(s)};
  PlanRequest request;
  request.with_baselines = false;
  const PlanReport report = plan_scenario(valid, Calibration{}, request);
  ASSERT_TRUE(report.best.fits);
  const std::string text = plan_json_text(report.best.plan);
  EXPECT_NE(text.find("\"mesh\""), std::string::npos);
  const Plan read = plan_from_json_string(text, "p.json", s.model);
  EXPECT_EQ(read.tensor.degree, 2);
  EXPECT_TRUE(read.tensor.sequence_parallel);
  EXPECT_NO_THROW(check_plan_configuration(read, s, Calibration{}));
  const Scenario four = llama_on_dgx("parallelism: {tensor: 4, sequence_parallel: true}\n");
  try {
    check_plan_configuration(read, four, Calibration{});
    ADD_FAILURE() << "a TP 2 plan passed for TP 4";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "plan.mesh");
  }
  // A plan file's mesh is read strictly: an unknown key or a degree out of range names the field.
  const auto bad = [&](const std::string& from, const std::string& to, const std::string& words) {
    std::string edited = text;
    const std::size_t at = edited.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    edited.replace(at, from.size(), to);
    try {
      plan_from_json_string(edited, "p.json", s.model);
      ADD_FAILURE() << "accepted " << to;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  bad("\"context\": 1", "\"contexts\": 1", "plan.mesh.contexts");
  bad("\"tensor\": 2", "\"tensor\": 0", "plan.mesh.tensor");
  // A search scenario runs the plan's mesh.
  const Scenario search = llama_on_dgx("parallelism: {tensor: search, sequence_parallel: true}\n");
  EXPECT_EQ(scenario_for_plan_mesh(search, read.tensor).mesh.tensor.degree, 2);
}

// Context parallelism: a sample is one chunk of s / C tokens; attention sees every chunk's keys.
TEST(ContextParallel, AChunkAttendsToTheWholeSequence) {
  const Model whole = generate_transformer(gpt());
  const Model two = generate_transformer(gpt(), TensorSlice{1, false, 2});
  const double h = 1024, s = 2048, c = s / 2;
  EXPECT_EQ(two.sequence_length, 1024);
  const Operator& att = op(two, "layer0.attention");
  EXPECT_EQ(att.parameters, op(whole, "layer0.attention").parameters);
  EXPECT_DOUBLE_EQ(att.forward_flops_per_sample, 2 * c * 4 * h * h + 4 * c * s * h);
  EXPECT_DOUBLE_EQ(op(two, "layer0.mlp").forward_flops_per_sample,
                   op(whole, "layer0.mlp").forward_flops_per_sample / 2);
  // Korthikanti at the chunk's tokens, the scores a chunk's queries by every key: 34ch + 5a c s.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(two), c * h * 34 + 5.0 * 16 * c * s);
  // Ring attention beside the kernels: K and V of the whole sequence (bf16) gathered forward, again
  // backward with their gradients reduce-scattered.
  ASSERT_EQ(att.tensor_collectives.size(), 3u);
  for (const TensorCollective& t : att.tensor_collectives) {
    EXPECT_EQ(t.axis, MeshAxis::context);
    EXPECT_TRUE(t.overlapped);
    EXPECT_DOUBLE_EQ(t.bytes_per_sample, 2 * 2 * s * h);
  }
  EXPECT_TRUE(op(two, "layer0.mlp").tensor_collectives.empty());
}

TEST(ContextParallel, RefusesWhatDoesNotDivide) {
  TransformerSpec odd = gpt();
  odd.sequence_length = 2050;
  expect_refused(odd, {1, false, 4}, "context", "does not divide the sequence length 2050");
  TransformerSpec short_chunks = gpt();
  short_chunks.sequence_length = 2052;  // 1026 tokens per chunk: not 4 whole tokens per GPU each
  expect_refused(short_chunks, {4, true, 2}, "sequence_parallel", "1026 tokens");
  expect_scenario_error("parallelism: {tensor: 4, context: 3}\n", "parallelism.tensor", 3,
                        "4 x context-parallel degree 3 spans nodes: a context-parallel group across nodes "
                        "takes whole nodes (a multiple of the 2 data-parallel ranks of a node)");
  expect_scenario_error("parallelism: {context: 3}\n", "parallelism.context", 3, "does not divide");
  expect_scenario_error("parallelism: {context: 32}\n", "parallelism.context", 3,
                        "and the 2 nodes must hold whole groups");
}

TEST(ContextParallel, AGroupAskedForMaySpanWholeNodes) {
  const Scenario s = llama_on_dgx("parallelism: {tensor: 4, context: 4}\n");
  EXPECT_EQ(mesh_text(s), "TP 4 x CP 4 x DP 1 (16 GPUs)");
  EXPECT_EQ(s.cluster.gpus_per_node, 2);  // the data-parallel view: a CP group is 2 ranks of each node
  const MeshGroupCosts groups = mesh_group_costs(s, Calibration{}, CollectiveModel::ring);
  ASSERT_NE(groups.context, nullptr);
  // The ring exchange crosses the network: an all-gather among the 4 ranks of two nodes costs what a
  // ring over those ranks costs, slower than one inside a node.
  const Scenario inside = llama_on_dgx("parallelism: {tensor: 4, context: 2}\n");
  const MeshGroupCosts near = mesh_group_costs(inside, Calibration{}, CollectiveModel::ring);
  const double bytes = 64.0 * 1024 * 1024;
  const CollectiveCost ring(s.cluster, 4, Calibration{}, CollectiveModel::ring);
  EXPECT_DOUBLE_EQ(groups.context->seconds(CollectiveKind::all_gather, GroupKind::intra, bytes),
                   ring.seconds(CollectiveKind::all_gather, GroupKind::intra, bytes));
  EXPECT_GT(groups.context->seconds(CollectiveKind::all_gather, GroupKind::intra, bytes),
            near.context->seconds(CollectiveKind::all_gather, GroupKind::intra, bytes));
  // A search stays inside a node; the degree asked for is the one tried.
  const Scenario asked = llama_on_dgx("parallelism: {tensor: search, context: 4}\n");
  std::vector<std::string> refused;
  const std::vector<TensorSlice> slices = candidate_slices(asked, &refused);
  ASSERT_EQ(slices.size(), 3u);  // TP 1, 2 (inside a node) and 4 (over both nodes) with CP 4
  EXPECT_EQ(slices.back().degree, 4);
  ASSERT_EQ(refused.size(), 1u);  // TP 8: one rank per node, CP 4 needs 4 nodes
  EXPECT_NE(refused.front().find("TP 8 x CP 4: "), std::string::npos) << refused.front();
}

TEST(ContextParallel, TheExchangeShowsOnlyBeyondTheKernels) {
  const Scenario s = llama_on_dgx("parallelism: {context: 4}\n");
  EXPECT_EQ(mesh_text(s), "CP 4 x DP 4 (16 GPUs)");
  EXPECT_EQ(s.cluster.gpus(), 16);  // the context ranks shard and reduce like data-parallel ranks
  EXPECT_EQ(s.model.sequence_length, 2048);
  const MeshGroupCosts groups = mesh_group_costs(s, Calibration{}, CollectiveModel::ring);
  ASSERT_NE(groups.context, nullptr);
  EXPECT_EQ(groups.tensor, nullptr);
  EXPECT_EQ(groups.context->group_ranks(GroupKind::intra), 4);
  const ComputeModel priced(s.cluster, s.training.precision, Calibration{}, s.execution.runtime, {}, groups);
  const Operator& attention = s.model.operators[1];
  Operator bare = attention;
  bare.tensor_collectives.clear();
  for (const double samples : {1.0, 64.0}) {
    double forward = 0, backward = 0;
    for (const TensorCollective& c : attention.tensor_collectives) {
      const double seconds = groups.context->seconds(c.kind, GroupKind::intra, c.bytes_per_sample * samples);
      (c.backward ? backward : forward) += seconds;
    }
    const ComputeModel::PassSeconds kernels = priced.pass_seconds(bare, samples, 1);
    const ComputeModel::PassSeconds with = priced.pass_seconds(attention, samples, 1);
    EXPECT_DOUBLE_EQ(with.forward, kernels.forward + std::max(0.0, forward - kernels.forward));
    EXPECT_DOUBLE_EQ(with.backward, kernels.backward + std::max(0.0, backward - kernels.backward));
  }
}

TEST(ContextParallel, SearchCoversEveryMeshOfANode) {
  const Scenario whole =
      llama_on_dgx("parallelism: {tensor: search, context: search, sequence_parallel: true}\n");
  std::vector<std::string> refused;
  const std::vector<TensorSlice> slices = candidate_slices(whole, &refused);
  EXPECT_EQ(slices.size(), 10u);  // T x C dividing 8: (1,1..8) 4, (2,1..4) 3, (4,1..2) 2, (8,1) 1
  EXPECT_TRUE(refused.empty());
  const Scenario fixed_tp = llama_on_dgx("parallelism: {tensor: 2, context: search}\n");
  EXPECT_EQ(candidate_slices(fixed_tp, nullptr).size(), 3u);
  // A global batch counts sequences; sliced, it counts chunks.
  const Scenario global = parse_scenario_string(
      "model: {preset: llama3.1-8b}\ncluster: {preset: dgx-a100, nodes: 2}\nparallelism: {context: 2}\n"
      "training: {global_batch: 32}\n");
  EXPECT_EQ(global.training.global_batch, 64);
}

}  // namespace
}  // namespace shardscope
