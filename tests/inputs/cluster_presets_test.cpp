// Tests of the shipped cluster presets: all parse with sources, link classes and node overrides are right.
#include "planner/io/cluster_presets.hpp"

#include <gtest/gtest.h>

#include "planner/io/preset_catalog.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

TEST(ClusterPresets, AllShippedPresetsParseAndSayWhereTheirNumbersComeFrom) {
  const auto names = cluster_presets().names();
  ASSERT_EQ(names.size(), 4u);
  for (const std::string& name : names) {
    const Cluster c = cluster_preset(name);
    EXPECT_EQ(c.name, name);
    EXPECT_FALSE(c.source.empty()) << name;
    EXPECT_GT(c.gpu.memory_bytes, 0) << name;
  }
}

TEST(ClusterPresets, TitanServerIsATwoSocketPcieTree) {
  const Cluster c = cluster_preset("titan-rtx-8-pcie3");
  EXPECT_EQ(c.gpus(), 8);
  EXPECT_EQ(c.gpu.memory_bytes, 24LL << 30);
  EXPECT_EQ(link_class_between(c, 0, 1), LinkClass::same_switch);
  EXPECT_EQ(link_class_between(c, 0, 2), LinkClass::cross_switch);
  EXPECT_EQ(link_class_between(c, 0, 4), LinkClass::cross_socket);
  EXPECT_DOUBLE_EQ(link_properties(c, LinkClass::cross_socket).bytes_per_second, 10e9);
}

TEST(ClusterPresets, DgxA100NodesOverrideAndNetworkClass) {
  const Cluster c = cluster_preset("dgx-a100", 4);
  EXPECT_EQ(c.gpus(), 32);
  EXPECT_EQ(link_class_between(c, 0, 7), LinkClass::nvlink);
  EXPECT_EQ(link_class_between(c, 7, 8), LinkClass::network);
  EXPECT_DOUBLE_EQ(link_properties(c, LinkClass::nvlink).bytes_per_second, 300e9);
  // A lone flow has one 200 Gb/s NIC to itself (the rail of its GPU).
  EXPECT_DOUBLE_EQ(link_properties(c, LinkClass::network).bytes_per_second, 25e9);
}

// One 100 Gb NIC per node of 8 GPUs: a lone flow still has the whole NIC (12.5 GB/s), not an eighth of it;
// how many flows share the NIC is the cost model's count (it was shown as 1.5625 GB/s, which a lone ring
// never sees).
TEST(ClusterPresets, NetworkClassIsOneNicForALoneFlow) {
  const Cluster c = cluster_preset("a100-40gb-2x8-100gbe");
  EXPECT_DOUBLE_EQ(link_properties(c, LinkClass::network).bytes_per_second, 12.5e9);
}

TEST(ClusterPresets, UnknownPresetListsTheKnownOnes) {
  test::expect_input_error([] { cluster_preset("tpu-v5e-pod"); }, "<cluster presets>", 0, "cluster.preset",
                           "unknown cluster preset 'tpu-v5e-pod'; known presets: a100-40gb-2x8-100gbe, "
                           "dgx-a100, dgx-h100, titan-rtx-8-pcie3");
}

TEST(ClusterPresets, AMisspelledPresetSuggestsTheNearest) {
  test::expect_input_error([] { cluster_preset("dgx-z900"); }, "<cluster presets>", 0, "cluster.preset",
                           "unknown cluster preset 'dgx-z900'; did you mean 'dgx-a100'?");
  test::expect_input_error([] { load_cluster("dgx-h10"); }, "dgx-h10", 0, "cluster",
                           "neither a cluster file nor a known preset; did you mean 'dgx-h100'?");
}

TEST(ClusterPresets, AbsurdNodeCountIsRefused) {
  test::expect_input_error([] { cluster_preset("dgx-a100", 200000); }, "scenarios/clusters/dgx-a100.yaml", 0,
                           "nodes", "at most 100000 nodes");
}

}  // namespace
}  // namespace shardscope
