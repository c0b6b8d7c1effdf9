// NCCL's model against published nccl-tests figures (busbw, +-10 % at >= 64 MiB) and NCCL's own worked
// latencies, its (algorithm, protocol) pick, and the CollectiveCost dispatch.
#include "planner/cost/nccl_model.hpp"

#include <gtest/gtest.h>

#include "planner/io/cluster_presets.hpp"

namespace shardscope {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// nccl-tests' busbw of one collective on every GPU of `cluster`, from NCCL's model.
double busbw_gbps(const Cluster& cluster, CollectiveKind kind, double bytes) {
  const int n = cluster.gpus();
  const NcclEstimate e = nccl_pick(nccl_topology(cluster, NcclGroup{n, 1, 1, 0}), kind, bytes);
  const double factor = kind == CollectiveKind::all_reduce ? 2.0 * (n - 1) / n : (n - 1.0) / n;
  return bytes / e.seconds() * factor / 1e9;
}

void expect_within(double value, double target, double tolerance) {
  EXPECT_GE(value, target * (1 - tolerance)) << "target " << target;
  EXPECT_LE(value, target * (1 + tolerance)) << "target " << target;
}

TEST(NcclModel, EightA100OnNvSwitchAllReduceNear230) {
  // nccl-tests#175 (232.5 GB/s measured), #149: 8 x A100 SXM NVSwitch all-reduce ~230 GB/s busbw.
  for (const double size : {64 * kMiB, 256 * kMiB, 1024 * kMiB}) {
    expect_within(busbw_gbps(cluster_preset("dgx-a100"), CollectiveKind::all_reduce, size), 230, 0.10);
  }
}

TEST(NcclModel, DgxA100MultiNodeAllReduceNear192) {
  // AddyLaddy, NVIDIA/nccl#812 (via nccl#1576): DGX-A100 with 8 x 200 Gb HDR IB, 192 GB/s busbw.
  for (const int nodes : {2, 4, 16}) {
    expect_within(busbw_gbps(cluster_preset("dgx-a100", nodes), CollectiveKind::all_reduce, 1024 * kMiB), 192,
                  0.10);
  }
}

TEST(NcclModel, TwoNodesWithOne100GbNicNear12) {
  // sjeaugey, nccl-tests#29 / nccl#307: 2 nodes, one 100 Gb/s NIC each, ~12 GB/s ("as good as you can get").
  expect_within(busbw_gbps(cluster_preset("a100-40gb-2x8-100gbe"), CollectiveKind::all_reduce, 1024 * kMiB),
                12, 0.10);
  expect_within(busbw_gbps(cluster_preset("a100-40gb-2x8-100gbe"), CollectiveKind::all_gather, 1024 * kMiB),
                12, 0.10);
}

TEST(NcclModel, EightH100RingAllReduceNear370) {
  // sjeaugey, nccl-tests#212: 8 x H100 NVLink, ring-limited all-reduce ~370 GB/s (NVLS aside).
  expect_within(busbw_gbps(cluster_preset("dgx-h100"), CollectiveKind::all_reduce, 1024 * kMiB), 370, 0.10);
}

TEST(NcclModel, EightGpusOnPcieGen3Between10And12) {
  // sjeaugey, nccl#406: 8 GPUs on PCIe Gen3 through switches, 10-12 GB/s (12 inside a switch, less
  // across sockets); the shipped box crosses its 10 GB/s socket link.
  const double busbw =
      busbw_gbps(cluster_preset("titan-rtx-8-pcie3"), CollectiveKind::all_reduce, 1024 * kMiB);
  EXPECT_GE(busbw, 10 * 0.9);
  EXPECT_LE(busbw, 12 * 1.1);
}

TEST(NcclModel, NcclsWorkedPcieLatencies) {
  // tuning.cc arithmetic (calibration notes section 2): 8-GPU PCIe all-reduce, ring LL 6.6 + 14 x 1.0 =
  // 20.6 us, ring Simple 8.4 + 14 x 5.7 = 88.2 us; NVLink ring LL 15 us, Simple 56 us.
  const NcclTopology pcie = nccl_topology(cluster_preset("titan-rtx-8-pcie3"), NcclGroup{8, 1, 1, 0});
  const auto latency_us = [](const NcclTopology& t, NcclProtocol p) {
    return 1e6 * nccl_estimate(t, CollectiveKind::all_reduce, NcclAlgorithm::ring, p, 8).latency_seconds;
  };
  EXPECT_NEAR(latency_us(pcie, NcclProtocol::ll), 20.6, 1e-9);
  EXPECT_NEAR(latency_us(pcie, NcclProtocol::simple), 88.2, 1e-9);
  EXPECT_FALSE(
      nccl_estimate(pcie, CollectiveKind::all_reduce, NcclAlgorithm::ring, NcclProtocol::ll128, 8).available);
  const NcclTopology nvlink = nccl_topology(cluster_preset("dgx-a100"), NcclGroup{8, 1, 1, 0});
  EXPECT_NEAR(latency_us(nvlink, NcclProtocol::ll), 15.0, 1e-9);
  EXPECT_NEAR(latency_us(nvlink, NcclProtocol::simple), 56.0, 1e-9);
  // The worked picks: 64 KiB -> LL, 1 MiB -> Simple on PCIe (busBw 10 here, not 12: the socket link).
  EXPECT_EQ(nccl_pick(pcie, CollectiveKind::all_reduce, 64 * 1024).protocol, NcclProtocol::ll);
  EXPECT_EQ(nccl_pick(pcie, CollectiveKind::all_reduce, kMiB).protocol, NcclProtocol::simple);
}

TEST(NcclModel, PicksTheFastestPairAndTreeOnlyForMultiNodeAllReduce) {
  const NcclTopology one = nccl_topology(cluster_preset("dgx-a100"), NcclGroup{8, 1, 1, 0});
  EXPECT_FALSE(nccl_estimate(one, CollectiveKind::all_reduce, NcclAlgorithm::tree, NcclProtocol::simple, 1e6)
                   .available);
  const NcclTopology many = nccl_topology(cluster_preset("dgx-a100", 16), NcclGroup{128, 1, 1, 0});
  EXPECT_FALSE(
      nccl_estimate(many, CollectiveKind::all_gather, NcclAlgorithm::tree, NcclProtocol::ll, 1e6).available);
  for (const double bytes : {8.0, 4096.0, 1e6, 1e8, 1e10}) {
    const NcclEstimate best = nccl_pick(many, CollectiveKind::all_reduce, bytes);
    for (const NcclAlgorithm a : {NcclAlgorithm::tree, NcclAlgorithm::ring}) {
      for (const NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
        const NcclEstimate e = nccl_estimate(many, CollectiveKind::all_reduce, a, p, bytes);
        if (e.available) {
          EXPECT_LE(best.seconds(), e.seconds());
        }
      }
    }
  }
  // Small all-reduce on 128 GPUs: the tree's log2(nodes) latency beats the ring's 2 (nodes - 1) hops.
  EXPECT_EQ(nccl_pick(many, CollectiveKind::all_reduce, 8).algorithm, NcclAlgorithm::tree);
  EXPECT_EQ(nccl_pick(many, CollectiveKind::all_reduce, 8).protocol, NcclProtocol::ll);
}

TEST(NcclModel, ChannelsFollowTheRails) {
  const Cluster c = cluster_preset("dgx-a100", 4);
  const NcclTopology t = nccl_topology(c, NcclGroup{32, 1, 1, 0});
  EXPECT_EQ(t.nodes, 4);
  EXPECT_EQ(t.channels, 16);                                 // 8 NICs, NCCL's duplication x2
  EXPECT_DOUBLE_EQ(t.inter_bus_bytes_per_second, 8 * 24e9);  // 200 Gb/s = 25 GB/s -> ladder rung 24
  for (int channel = 0; channel < t.channels; ++channel) {
    const std::vector<int> ring = nccl_ring_order(t, channel);
    ASSERT_EQ(ring.size(), 32u);
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const int a = ring[i], b = ring[(i + 1) % ring.size()];
      // Leaving a node and entering the next: the same local GPU, hence the same rail (except the wrap).
      if (c.node_of(a) != c.node_of(b) && i + 1 < ring.size()) {
        EXPECT_EQ(a % 8, b % 8);
      }
    }
  }
  // Each NIC sends for exactly two channels (the duplicated pair of its rail).
  std::vector<int> sends(8, 0);
  for (int channel = 0; channel < t.channels; ++channel) {
    const std::vector<int> ring = nccl_ring_order(t, channel);
    sends[static_cast<std::size_t>(ring[7] % 8)]++;  // node 0's leaving GPU
  }
  for (const int s : sends) EXPECT_EQ(s, 2);
  // One GPU per node on its own rail: inter groups of 8 communicators share nothing on 8 NICs ...
  EXPECT_DOUBLE_EQ(nccl_topology(c, NcclGroup{4, 8, 8, 1}).inter_bus_bytes_per_second, 24e9);
  // ... and share the single NIC of the 100 GbE pair 8 ways.
  EXPECT_DOUBLE_EQ(
      nccl_topology(cluster_preset("a100-40gb-2x8-100gbe"), NcclGroup{2, 8, 8, 1}).inter_bus_bytes_per_second,
      12e9 / 8);
  EXPECT_EQ(nccl_tree_parent(4, 0, 0), -1);
  EXPECT_EQ(nccl_tree_parent(4, 1, 3), -1);
  EXPECT_EQ(nccl_tree_parent(4, 0, 3), 1);
  EXPECT_EQ(nccl_tree_parent(4, 1, 0), 2);
}

TEST(NcclModel, CollectiveCostDispatchesToNccl) {
  const Cluster c = cluster_preset("dgx-a100", 4);
  const Calibration cal;
  const CollectiveCost ring(c, 8, cal);
  const CollectiveCost nccl(c, 8, cal, CollectiveModel::nccl);
  EXPECT_EQ(ring.nccl(GroupKind::global), nullptr);
  ASSERT_NE(nccl.nccl(GroupKind::global), nullptr);
  const double bytes = 1e9;
  EXPECT_DOUBLE_EQ(nccl.seconds(CollectiveKind::all_gather, GroupKind::global, bytes),
                   nccl_pick(*nccl.nccl(GroupKind::global), CollectiveKind::all_gather, bytes).seconds());
  // One ring through one NIC vs a channel per NIC: NCCL is several times faster across nodes.
  EXPECT_GT(ring.seconds(CollectiveKind::all_gather, GroupKind::global, bytes),
            5 * nccl.seconds(CollectiveKind::all_gather, GroupKind::global, bytes));
  EXPECT_EQ(nccl.seconds(CollectiveKind::all_gather, GroupKind::global, 0), 0);
}

}  // namespace
}  // namespace shardscope
