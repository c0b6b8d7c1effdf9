// Ring collective costs by hand: the bottleneck link class and alpha-beta steps.
#include "planner/cost/collective_cost.hpp"

#include <gtest/gtest.h>

#include "planner/io/cluster_presets.hpp"

namespace shardscope {
namespace {

TEST(CollectiveCost, PcieRingIsBoundByTheCrossSocketLink) {
  const Cluster c = cluster_preset("titan-rtx-8-pcie3");
  const Calibration cal;
  const CollectiveCost cost(c, 8, cal);
  // 8 ranks: 7 steps of 1e9/8 bytes over 10 GB/s, alpha = 5 hops x 1 us.
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::global, 1e9),
                   7 * (5e-6 + 1.25e8 / 1e10));
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_reduce, GroupKind::global, 1e9),
                   14 * (5e-6 + 1.25e8 / 1e10));
}

TEST(CollectiveCost, GroupsOnMultiNodeClusters) {
  const Cluster c = cluster_preset("dgx-a100", 4);
  const Calibration cal;
  const CollectiveCost cost(c, 8, cal);
  EXPECT_EQ(cost.group_ranks(GroupKind::intra), 8);
  EXPECT_EQ(cost.group_ranks(GroupKind::inter), 4);
  EXPECT_EQ(cost.group_ranks(GroupKind::global), 32);
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::reduce_scatter, GroupKind::intra, 8e9),
                   7 * (1e-6 + 1e9 / 300e9));
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::inter, 4e9), 3 * (2e-6 + 1e9 / 25e9));
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::global, 32e9),
                   31 * (2e-6 + 1e9 / 25e9));
}

TEST(CollectiveCost, CalibrationOverridesALinkClass) {
  const Cluster c = cluster_preset("dgx-a100", 2);
  Calibration cal;
  cal.links[static_cast<std::size_t>(LinkClass::nvlink)] = LinkCalibration{4e-6, 200e9};
  const CollectiveCost cost(c, 8, cal);
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 8e9), 7 * (4e-6 + 1e9 / 200e9));
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 0), 0);
  Calibration slow = cal;
  slow.message_efficiency = {{1e3, 0.5}, {1e12, 0.5}};
  const CollectiveCost half(c, 8, slow);
  EXPECT_DOUBLE_EQ(half.seconds(CollectiveKind::all_gather, GroupKind::intra, 8e9), 7 * (4e-6 + 2e9 / 200e9));
}

TEST(CollectiveCost, AGlobalRingGetsAWholeNicWhereNodesHaveFewerNicsThanGpus) {
  // One 100 Gb NIC for 8 GPUs: the lone global ring crosses each NIC once, so it gets the whole 12.5 GB/s
  // (the per-GPU share, 1.5625 GB/s, was 8x too pessimistic); the 8 inter-group rings share it.
  const Cluster c = cluster_preset("a100-40gb-2x8-100gbe");
  const CollectiveCost cost(c, 8, Calibration{});
  EXPECT_DOUBLE_EQ(cost.ring(GroupKind::global).bytes_per_second, 12.5e9);
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::global, 1e9),
                   15 * (10e-6 + 62.5e6 / 12.5e9));
  EXPECT_DOUBLE_EQ(cost.ring(GroupKind::inter).bytes_per_second, 12.5e9 / 8);
}

TEST(CollectiveCost, RingsOfAFamilyShareTheLinksTheyCrossAtOnce) {
  // Groups of 4 on the two-socket PCIe server: the 4 inter-group rings (r, r + 4) all cross the 10 GB/s
  // socket link in both directions at once, and each switch uplink carries two of them.
  const Cluster c = cluster_preset("titan-rtx-8-pcie3");
  const CollectiveCost cost(c, 4, Calibration{});
  EXPECT_DOUBLE_EQ(cost.ring(GroupKind::inter).bytes_per_second, 10e9 / 4);
  EXPECT_DOUBLE_EQ(cost.ring(GroupKind::inter).alpha_seconds, 5e-6);
  EXPECT_DOUBLE_EQ(cost.ring(GroupKind::intra).bytes_per_second, 12e9);  // each uplink direction: one ring
}

Cluster fat_tree(double leaf_oversubscription, int leaves_per_pod, double spine_oversubscription) {
  Cluster c = cluster_preset("dgx-a100", 8);
  c.network.nics_per_node = 1;
  c.network.nodes_per_leaf = 2;
  c.network.oversubscription = leaf_oversubscription;
  c.network.leaves_per_pod = leaves_per_pod;
  c.network.spine_oversubscription = spine_oversubscription;
  return c;
}

TEST(CollectiveCost, AnOversubscribedFatTreeIsTheBottleneckOfRingsCrossingIt) {
  const double nic = 25e9;
  // A leaf of 2 nodes with one NIC each and 4:1 oversubscription has nic / 2 up: the global ring crosses it
  // once, so it runs at nic / 2; the 8 inter-group rings (one per GPU of a node) share it 8 ways.
  const CollectiveCost leaf(fat_tree(4, 0, 1), 8, Calibration{});
  EXPECT_DOUBLE_EQ(leaf.ring(GroupKind::global).bytes_per_second, nic / 2);
  EXPECT_DOUBLE_EQ(leaf.ring(GroupKind::inter).bytes_per_second, nic / 2 / 8);
  // Without oversubscription the NIC is the bottleneck.
  EXPECT_DOUBLE_EQ(
      CollectiveCost(fat_tree(1, 0, 1), 8, Calibration{}).ring(GroupKind::global).bytes_per_second, nic);
  // Pods of 2 leaves with a 4:1 spine: a pod's uplink is 2 x (2 x nic) / 4 = nic; at 8:1, nic / 2.
  EXPECT_DOUBLE_EQ(
      CollectiveCost(fat_tree(1, 2, 4), 8, Calibration{}).ring(GroupKind::global).bytes_per_second, nic);
  EXPECT_DOUBLE_EQ(
      CollectiveCost(fat_tree(1, 2, 8), 8, Calibration{}).ring(GroupKind::global).bytes_per_second, nic / 2);
  // The inter-group rings: 8 flows through each pod uplink of nic / 2.
  EXPECT_DOUBLE_EQ(
      CollectiveCost(fat_tree(1, 2, 8), 8, Calibration{}).ring(GroupKind::inter).bytes_per_second,
      nic / 2 / 8);
}

TEST(CollectiveCost, EveryPcieLinkClassCalibratesItsOwnLinks) {
  const Cluster c = cluster_preset("titan-rtx-8-pcie3");
  Calibration cal;
  cal.links[static_cast<std::size_t>(LinkClass::same_switch)] = LinkCalibration{3e-6, 11e9};
  cal.links[static_cast<std::size_t>(LinkClass::cross_switch)] = LinkCalibration{7e-6, 9e9};
  cal.links[static_cast<std::size_t>(LinkClass::cross_socket)] = LinkCalibration{12e-6, 8e9};
  // The global ring's worst edge crosses the sockets: its calibrated alpha and bandwidth.
  const CollectiveCost cost(c, 2, cal);
  EXPECT_DOUBLE_EQ(cost.ring(GroupKind::global).bytes_per_second, 8e9);
  EXPECT_NEAR(cost.ring(GroupKind::global).alpha_seconds, 12e-6, 1e-18);
  EXPECT_EQ(cost.ring(GroupKind::global).bottleneck, LinkClass::cross_socket);
  // Pairs under one switch: the same-switch numbers.
  EXPECT_DOUBLE_EQ(cost.ring(GroupKind::intra).bytes_per_second, 11e9);
  EXPECT_NEAR(cost.ring(GroupKind::intra).alpha_seconds, 3e-6, 1e-18);
  EXPECT_EQ(cost.ring(GroupKind::intra).bottleneck, LinkClass::same_switch);
}

TEST(CollectiveCost, ARingUsesTheMessageEfficiencyOfItsBottleneckClass) {
  const Cluster c = cluster_preset("dgx-a100", 2);
  Calibration cal;
  cal.message_efficiency = {{1e3, 0.8}};
  cal.link_message_efficiency[static_cast<std::size_t>(LinkClass::network)] = {{1e3, 0.5}};
  const CollectiveCost cost(c, 8, cal);
  // Intra-node rings are NVLink-bound: the default table. The global ring is network-bound: its table.
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 8e9),
                   7 * (1e-6 + 1e9 / 0.8 / 300e9));
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::global, 16e9),
                   15 * (2e-6 + 1e9 / 0.5 / 25e9));
  EXPECT_DOUBLE_EQ(cost.ring_seconds(CollectiveKind::all_gather, GroupKind::inter, 3, 1e9),
                   3 * (2e-6 + 1e9 / 0.5 / 25e9));
}

// A kind's factor scales the bandwidth term of its bottleneck class only (not alpha, not other classes).
TEST(CollectiveCost, AKindsFactorScalesItsBottleneckClassesBandwidth) {
  const Cluster c = cluster_preset("dgx-a100", 2);
  Calibration cal;
  cal.message_efficiency = {{1e3, 0.8}};
  auto& network = cal.collective_efficiency[static_cast<std::size_t>(LinkClass::network)];
  network[static_cast<std::size_t>(CollectiveKind::reduce_scatter)] = 0.5;
  network[static_cast<std::size_t>(CollectiveKind::all_reduce)] = 0.25;
  const CollectiveCost cost(c, 8, cal);
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::reduce_scatter, GroupKind::global, 16e9),
                   15 * (2e-6 + 1e9 / (0.8 * 0.5) / 25e9));
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_reduce, GroupKind::global, 16e9),
                   30 * (2e-6 + 1e9 / (0.8 * 0.25) / 25e9));
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::all_gather, GroupKind::global, 16e9),
                   15 * (2e-6 + 1e9 / 0.8 / 25e9));  // unset: 1
  // The intra-node rings are NVLink-bound: no factor there.
  EXPECT_DOUBLE_EQ(cost.seconds(CollectiveKind::reduce_scatter, GroupKind::intra, 8e9),
                   7 * (1e-6 + 1e9 / 0.8 / 300e9));
  EXPECT_DOUBLE_EQ(cost.message_efficiency(CollectiveKind::reduce_scatter, GroupKind::global, 1e9), 0.4);
}

}  // namespace
}  // namespace shardscope
