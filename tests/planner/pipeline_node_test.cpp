// Pipeline stages inside a node: a node's GPUs split evenly among stages (NVSwitch, or whole parts of a PCIe
// tree), the sends between them over the node's own links, and the refusals naming the rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/mesh.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/pipeline_search.hpp"

namespace shardscope {
namespace {

std::string refusal(const Cluster& physical, int stages) {
  try {
    pipeline_stage_cluster(physical, stages);
  } catch (const MeshError& e) {
    EXPECT_EQ(e.field(), "parallelism.pipeline");
    return e.what();
  }
  return "";
}

TEST(PipelineInsideANode, StagesSplitANodesGpusEvenly) {
  const Cluster one = cluster_preset("dgx-a100", 1);
  const Cluster half = pipeline_stage_cluster(one, 2);
  EXPECT_EQ(half.nodes, 1);
  EXPECT_EQ(half.gpus_per_node, 4);
  EXPECT_EQ(half.network.nics_per_node, 4);  // the stage's own rails
  EXPECT_EQ(half.nvswitch.gpu_bytes_per_second, one.nvswitch.gpu_bytes_per_second);
  // Two nodes: two stages take a node each, four take half of one.
  const Cluster two = cluster_preset("dgx-a100", 2);
  EXPECT_EQ(pipeline_stage_cluster(two, 2).nodes, 1);
  EXPECT_EQ(pipeline_stage_cluster(two, 2).gpus_per_node, 8);
  EXPECT_EQ(pipeline_stage_cluster(two, 4).gpus_per_node, 4);
  EXPECT_EQ(pipeline_stage_cluster(two, 16).gpus_per_node, 1);
  EXPECT_NE(
      refusal(one, 3).find("3 pipeline stages neither divide the 1 node(s) nor split each node's 8 GPUs"),
      std::string::npos)
      << refusal(one, 3);
  EXPECT_NE(refusal(two, 3).find("neither divide"), std::string::npos);
  EXPECT_NE(refusal(two, 6).find("neither divide"), std::string::npos);  // 3 stages in an 8-GPU node
  EXPECT_NE(refusal(two, 32).find("neither divide"), std::string::npos);
}

// The OSDP paper's server: 2 sockets x 2 PCIe switches x 2 GPUs. A stage takes part of a switch, whole
// switches of a socket, or whole sockets.
TEST(PipelineInsideANode, APcieStageTakesWholePartsOfTheTree) {
  const Cluster box = cluster_preset("titan-rtx-8-pcie3", 1);
  const Cluster socket = pipeline_stage_cluster(box, 2);
  EXPECT_EQ(socket.pcie.sockets, 1);
  EXPECT_EQ(socket.pcie.switches_per_socket, 2);
  EXPECT_EQ(socket.pcie.gpus_per_switch, 2);
  const Cluster pcie_switch = pipeline_stage_cluster(box, 4);
  EXPECT_EQ(pcie_switch.pcie.switches_per_socket, 1);
  EXPECT_EQ(pcie_switch.pcie.gpus_per_switch, 2);
  const Cluster gpu = pipeline_stage_cluster(box, 8);
  EXPECT_EQ(gpu.gpus(), 1);
  EXPECT_EQ(gpu.pcie.gpus_per_switch, 1);
}

// A 6-layer model on one DGX-A100 node in two stages of 4 GPUs: each stage's plan runs on its 4 GPUs, and a
// send is the activation over the stage's NVLink port (rank i to rank i + 4), by hand.
TEST(PipelineInsideANode, TwoStagesOfOneNodeSendOverNvlink) {
  const Scenario whole = parse_scenario_string(
      "model:\n  transformer: {layers: 6, hidden: 2048, heads: 16, vocab: 32000, sequence_length: 2048, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {preset: dgx-a100, nodes: 1}\n"
      "training: {micro_batch: 2, gradient_accumulation_steps: 4, memory_limit: 20GB}\n"
      "parallelism: {pipeline: 2}\n");
  const PipelineSearch search = search_pipelines(whole, Calibration{});
  ASSERT_EQ(search.options.size(), 1u);
  const PipelineOption& o = search.options[0];
  ASSERT_TRUE(o.fits) << o.why_not;
  EXPECT_EQ(o.data_parallel, 4);
  for (const PipelineStagePlan& s : o.stage_plans) EXPECT_EQ(s.scenario->cluster.gpus(), 4);
  // 2 x 2048 tokens x 2048 hidden x 2 bytes over 300 GB/s, plus NVSwitch's 1 us.
  EXPECT_DOUBLE_EQ(o.boundary_seconds(), 1e-6 + 2.0 * 2048 * 2048 * 2 / 300e9);
  // On two nodes, four stages of 4 GPUs: the node-crossing send (one NIC of 25 GB/s per GPU) is the slowest.
  Scenario two = whole;
  two.cluster = cluster_preset("dgx-a100", 2);
  two.parallelism.pipeline = 4;
  two.training.gradient_accumulation_steps = 4;
  const PipelineOption four = search_pipelines(two, Calibration{}).options.at(0);
  ASSERT_TRUE(four.fits) << four.why_not;
  const double nic = two.cluster.network.nic_bytes_per_second;
  EXPECT_DOUBLE_EQ(four.boundary_seconds(),
                   two.cluster.network.latency_seconds + 2.0 * 2048 * 2048 * 2 / nic);
}

// `pipeline: search` on one node tries every stage count that divides its GPUs; three stages are refused by
// name when asked for.
TEST(PipelineInsideANode, SearchOnOneNodeTriesStagesInsideIt) {
  Scenario whole = parse_scenario_string(
      "model:\n  transformer: {layers: 8, hidden: 1024, heads: 16, vocab: 32000, sequence_length: 1024, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {preset: dgx-a100, nodes: 1}\n"
      "training: {micro_batch: 1, gradient_accumulation_steps: 8, memory_limit: 20GB}\n"
      "parallelism: {pipeline: search}\n");
  const PipelineSearch search = search_pipelines(whole, Calibration{});
  std::vector<int> stages;
  for (const PipelineOption& o : search.options) stages.push_back(o.stages);
  EXPECT_EQ(stages, (std::vector<int>{1, 2, 4, 8}));
  whole.parallelism.pipeline = 3;
  try {
    search_pipelines(whole, Calibration{});
    FAIL() << "3 stages on an 8-GPU node were built";
  } catch (const MeshError& e) {
    EXPECT_EQ(e.field(), "parallelism.pipeline");
    EXPECT_NE(std::string(e.what()).find("3 pipeline stages neither divide"), std::string::npos) << e.what();
  }
}

// A PaRO group of a node larger than a stage becomes the stage's GPUs; one that neither divides a stage
// nor is divided by it is refused by name (12-GPU nodes, groups of 4, stages of 6).
TEST(PipelineInsideANode, APaRoGroupFitsTheStageOrIsRefused) {
  const std::string text =
      "model:\n  transformer: {layers: 8, hidden: 1024, heads: 16, vocab: 32000, sequence_length: 1024, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {preset: dgx-a100, nodes: 1, gpus_per_node: 12}\n"
      "training: {micro_batch: 1, gradient_accumulation_steps: 8, memory_limit: 20GB, group_size: GROUP}\n"
      "parallelism: {pipeline: 2}\n";
  const auto with_group = [&](const std::string& group) {
    std::string t = text;
    return parse_scenario_string(t.replace(t.find("GROUP"), 5, group));
  };
  const PipelineOption whole_node_group = search_pipelines(with_group("12"), Calibration{}).options.at(0);
  ASSERT_TRUE(whole_node_group.fits) << whole_node_group.why_not;
  EXPECT_EQ(whole_node_group.stage_plans[0].scenario->training.group_size, 6);
  try {
    search_pipelines(with_group("4"), Calibration{});
    FAIL() << "groups of 4 on stages of 6 GPUs were built";
  } catch (const MeshError& e) {
    EXPECT_NE(std::string(e.what()).find("group size 4 GPUs does not divide a pipeline stage's 6 GPUs"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shardscope
