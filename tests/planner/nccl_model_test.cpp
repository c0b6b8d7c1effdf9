// NCCL's model against published nccl-tests figures (busbw, +-10 % at >= 64 MiB) and NCCL's own worked
// latencies, its (algorithm, protocol) pick, chains and rings of groups not aligned with nodes, and the
// CollectiveCost dispatch.
#include "planner/cost/nccl_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>

#include "planner/cost/nccl_calibration.hpp"
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
  // sjeaugey, nccl-tests#212: 8 x H100 NVLink, ring-limited all-reduce ~370 GB/s (NCCL_ALGO=Ring; NVLS
  // aside).
  const NcclTopology t = nccl_topology(cluster_preset("dgx-h100"), NcclGroup{8, 1, 1, 0});
  const double bytes = 1024 * kMiB;
  const NcclEstimate ring =
      nccl_estimate(t, CollectiveKind::all_reduce, NcclAlgorithm::ring, NcclProtocol::simple, bytes);
  expect_within(bytes / ring.seconds() * 14 / 8 / 1e9, 370, 0.10);
}

// NVLS on 8 H100s: NCCL's formula with the NVLS graph (8 channels at 60 GB/s, efficiency 0.85): all-reduce
// bus bandwidth 8 x min(60 x 0.85 x 7/8 x 2, 60) = 480 GB/s, all-gather 8 x 60 x 0.85 x 7/8 x 7/8 = 312.375
// GB/s without the ring's conversion; 25 us; picked for all-reduce from 2 MiB, as nccl-tests#290 measured
// (476.5 GB/s at 4 GiB), not for all-gather (the ring's 359 GB/s beats it).
TEST(NcclModel, EightH100sReduceInTheSwitch) {
  const NcclTopology t = nccl_topology(cluster_preset("dgx-h100"), NcclGroup{8, 1, 1, 0});
  EXPECT_TRUE(t.nvls);
  EXPECT_EQ(t.nvls_channels, 8);
  const NcclEstimate ar =
      nccl_estimate(t, CollectiveKind::all_reduce, NcclAlgorithm::nvls, NcclProtocol::simple, 1e9);
  ASSERT_TRUE(ar.available);
  EXPECT_NEAR(ar.bus_bytes_per_second, 480e9, 1e-3);
  EXPECT_NEAR(ar.latency_seconds, 25e-6, 1e-15);
  EXPECT_NEAR(ar.bandwidth_seconds, 1e9 / (480e9 * 8 / 14), 1e-15);
  const NcclEstimate ag =
      nccl_estimate(t, CollectiveKind::all_gather, NcclAlgorithm::nvls, NcclProtocol::simple, 1e9);
  EXPECT_NEAR(ag.bus_bytes_per_second, 8 * 60 * 0.85 * 7.0 / 8 * 7.0 / 8 * 1e9, 1e-3);
  EXPECT_NEAR(ag.bandwidth_seconds, 1e9 / ag.bus_bytes_per_second, 1e-15);
  EXPECT_FALSE(
      nccl_estimate(t, CollectiveKind::all_reduce, NcclAlgorithm::nvls, NcclProtocol::ll, 1e9).available);
  EXPECT_EQ(nccl_pick(t, CollectiveKind::all_reduce, 4096 * kMiB).algorithm, NcclAlgorithm::nvls);
  EXPECT_EQ(nccl_pick(t, CollectiveKind::all_reduce, kMiB).algorithm, NcclAlgorithm::ring);
  EXPECT_EQ(nccl_pick(t, CollectiveKind::all_gather, 4096 * kMiB).algorithm, NcclAlgorithm::ring);
  expect_within(busbw_gbps(cluster_preset("dgx-h100"), CollectiveKind::all_reduce, 4096 * kMiB), 476.5, 0.02);
  // No NVLS on Ampere, on PCIe, or with one member a node; across nodes only NVLSTree, all-reduce only.
  EXPECT_FALSE(nccl_topology(cluster_preset("dgx-a100"), NcclGroup{8, 1, 1, 0}).nvls);
  EXPECT_FALSE(nccl_topology(cluster_preset("dgx-h100", 4), NcclGroup{4, 8, 8, 1}).nvls);
  const NcclTopology two = nccl_topology(cluster_preset("dgx-h100", 2), NcclGroup{16, 1, 1, 0});
  EXPECT_FALSE(nccl_estimate(two, CollectiveKind::all_reduce, NcclAlgorithm::nvls, NcclProtocol::simple, 1e9)
                   .available);
  EXPECT_FALSE(
      nccl_estimate(two, CollectiveKind::all_gather, NcclAlgorithm::nvls_tree, NcclProtocol::simple, 1e9)
          .available);
}

// NVLSTree on 2 x DGX-H100: heads at the NICs' 48 GB/s rung, 8 channels, bw = min(48 x 0.85 x 7/8 x 2, 2 x
// 48, 57.7 (Hopper's two-node cap)) = 57.7: 461.6 GB/s bus; nccl-tests#309 measured 469.2 at 16 GiB. Latency
// 25 + 2 x log2(2) x 20.9 us.
TEST(NcclModel, TwoH100NodesReduceInTheSwitchesAndATree) {
  const NcclTopology t = nccl_topology(cluster_preset("dgx-h100", 2), NcclGroup{16, 1, 1, 0});
  const NcclEstimate e =
      nccl_estimate(t, CollectiveKind::all_reduce, NcclAlgorithm::nvls_tree, NcclProtocol::simple, 1e9);
  ASSERT_TRUE(e.available);
  EXPECT_NEAR(e.bus_bytes_per_second, 8 * 57.7e9, 1e-3);
  EXPECT_NEAR(e.latency_seconds, (25 + 2 * 20.9) * 1e-6, 1e-15);
  EXPECT_EQ(nccl_pick(t, CollectiveKind::all_reduce, 16384 * kMiB).algorithm, NcclAlgorithm::nvls_tree);
  expect_within(busbw_gbps(cluster_preset("dgx-h100", 2), CollectiveKind::all_reduce, 16384 * kMiB), 469.2,
                0.03);
}

// PAT: all-gather and reduce-scatter over one GPU per node (NCCL 2.23+), Simple: 8 + log2(nodes) x 14 / 3.5 +
// 2.8 x ranks us, 0.75 of the tree graph's bus bandwidth unconverted; picked over the ring for small
// messages at 16 nodes (68.8 us against the ring's 218.4) and not for large ones.
TEST(NcclModel, ParallelAggregatedTreesAtOneGpuPerNode) {
  Cluster c = cluster_preset("dgx-h100", 16);
  c.gpus_per_node = 1;
  c.network.nics_per_node = 1;
  const NcclTopology t = nccl_topology(c, NcclGroup{16, 1, 1, 0});
  const NcclEstimate e =
      nccl_estimate(t, CollectiveKind::all_gather, NcclAlgorithm::pat, NcclProtocol::simple, 1e6);
  ASSERT_TRUE(e.available);
  EXPECT_NEAR(e.latency_seconds, (8 + 4 * 14 / 3.5 + 16 * 2.8) * 1e-6, 1e-15);
  EXPECT_NEAR(e.bus_bytes_per_second, 0.75 * t.inter_bus_bytes_per_second, 1e-3);
  EXPECT_NEAR(e.bandwidth_seconds, 1e6 / e.bus_bytes_per_second, 1e-15);
  EXPECT_EQ(nccl_pick(t, CollectiveKind::reduce_scatter, kMiB).algorithm, NcclAlgorithm::pat);
  EXPECT_EQ(nccl_pick(t, CollectiveKind::all_gather, 1024 * kMiB).algorithm, NcclAlgorithm::ring);
  EXPECT_FALSE(
      nccl_estimate(t, CollectiveKind::all_reduce, NcclAlgorithm::pat, NcclProtocol::simple, 1e6).available);
  EXPECT_FALSE(
      nccl_estimate(t, CollectiveKind::all_gather, NcclAlgorithm::pat, NcclProtocol::ll, 1e6).available);
  const NcclTopology eight = nccl_topology(cluster_preset("dgx-h100", 2), NcclGroup{16, 1, 1, 0});
  EXPECT_FALSE(nccl_estimate(eight, CollectiveKind::all_gather, NcclAlgorithm::pat, NcclProtocol::simple, 1e6)
                   .available);
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

// The planner's intra family of 12-GPU groups on three 8-GPU nodes: communicator 0 holds 8 GPUs of node 0
// and 4 of node 1, communicator 1 4 of node 1 and 8 of node 2.
NcclFamily twelve_on_three_dgx_a100() {
  return nccl_family(cluster_preset("dgx-a100", 3), nccl_group_of(GroupKind::intra, 24, 12));
}

// Every node's members, from the topology's member list and node starts.
std::vector<std::vector<int>> node_lists(const NcclTopology& t) {
  std::vector<std::vector<int>> out;
  for (int node = 0; node < t.nodes; ++node) {
    const std::span<const int> local = nccl_node_members(t, node);
    out.emplace_back(local.begin(), local.end());
  }
  return out;
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(NcclModel, UnevenGroupsChainEachNodesOwnMembers) {
  const Cluster c = cluster_preset("dgx-a100", 3);
  const NcclFamily family = twelve_on_three_dgx_a100();
  ASSERT_EQ(family.copies.size(), 2u);
  EXPECT_EQ(node_lists(family.copies[0]),
            (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11}}));
  EXPECT_EQ(node_lists(family.copies[1]),
            (std::vector<std::vector<int>>{{12, 13, 14, 15}, {16, 17, 18, 19, 20, 21, 22, 23}}));
  for (const NcclTopology& t : family.copies) {
    ASSERT_EQ(t.nodes, 2);
    for (int channel = 0; channel < t.channels; ++channel) {
      const std::vector<std::vector<int>> chains = nccl_chains(t, channel);
      ASSERT_EQ(chains.size(), 2u);
      for (std::size_t node = 0; node < chains.size(); ++node) {
        EXPECT_EQ(sorted(chains[node]), node_lists(t)[node]) << "channel " << channel << ", node " << node;
        EXPECT_EQ(nccl_chain_order(t, static_cast<int>(node), channel), chains[node]);
      }
      const std::vector<int> ring = nccl_ring_order(t, channel);
      EXPECT_EQ(sorted(ring), t.members);  // every member once
      int node_changes = 0;
      for (std::size_t i = 0; i < ring.size(); ++i) {
        const int a = ring[i], b = ring[(i + 1) % ring.size()];
        if (c.node_of(a) == c.node_of(b)) continue;
        ++node_changes;
        // Leaving node 0 for node 1 (not the wrap back): the same local GPU, hence the same rail.
        if (i + 1 < ring.size()) {
          EXPECT_EQ(a % 8, b % 8) << "channel " << channel;
        }
      }
      EXPECT_EQ(node_changes, 2);  // consecutive members of a chain share a node: one hop out, one back
    }
    // The 4-GPU node reaches 4 NICs: 4 rails, doubled, and the hop out of node 0 leaves on each of the
    // 4 local GPUs both nodes hold for two channels.
    EXPECT_EQ(t.rails, 4);
    EXPECT_EQ(t.channels, 8);
    std::vector<int> crossings(8, 0);
    for (int channel = 0; channel < t.channels; ++channel)
      ++crossings[static_cast<std::size_t>(nccl_chains(t, channel)[0].back() % 8)];
    const std::vector<std::vector<int>> lists = node_lists(t);
    const std::vector<int>& sparse = lists[0].size() < lists[1].size() ? lists[0] : lists[1];
    for (const int gpu : sparse) EXPECT_EQ(crossings[static_cast<std::size_t>(gpu % 8)], 2);
  }
}

TEST(NcclModel, UnevenGroupsTakeTheRailsOfTheSparsestNode) {
  // Slicing the 12 members into two runs of 6 (the old model) put GPUs 6 and 7 of node 0 in node 1's chain
  // and gave communicator 0 node 0's 8 rails (16 channels, 192 GB/s); node 1 has 4 of the group's GPUs,
  // hence 4 NICs: NCCL keeps the fewest channels any node found.
  const NcclTopology t = twelve_on_three_dgx_a100().copies[0];
  for (int channel = 0; channel < t.channels; ++channel) {
    EXPECT_EQ(sorted(nccl_chain_order(t, 0, channel)), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  }
  EXPECT_EQ(t.ranks_per_node, 6);  // NCCL's formulas read nRanks / nNodes
  EXPECT_DOUBLE_EQ(t.inter_bus_bytes_per_second, 4 * 24e9);
  // Both communicators sit alike (8 + 4, 4 + 8): one shape, the same estimate.
  EXPECT_EQ(twelve_on_three_dgx_a100().shapes.size(), 1u);
}

TEST(NcclModel, UnevenStridedGroupsKeepEveryMember) {
  // The inter family of 6-GPU groups on three 8-GPU nodes: communicator 0 is ranks 0, 6 (node 0), 12, 18.
  const Cluster c = cluster_preset("dgx-a100", 3);
  const NcclFamily family = nccl_family(c, nccl_group_of(GroupKind::inter, 24, 6));
  ASSERT_EQ(family.copies.size(), 6u);
  const NcclTopology& t = family.copies[0];
  EXPECT_EQ(node_lists(t), (std::vector<std::vector<int>>{{0, 6}, {12}, {18}}));
  EXPECT_EQ(node_lists(family.copies[2]), (std::vector<std::vector<int>>{{2}, {8, 14}, {20}}));
  for (const NcclTopology& copy : family.copies) {
    for (int channel = 0; channel < copy.channels; ++channel) {
      // Runs of 4 / 3 = 1 member dropped rank 18 from the ring.
      EXPECT_EQ(sorted(nccl_ring_order(copy, channel)), copy.members);
      const std::vector<std::vector<int>> chains = nccl_chains(copy, channel);
      for (std::size_t node = 0; node < chains.size(); ++node)
        EXPECT_EQ(sorted(chains[node]), node_lists(copy)[node]);
    }
  }
  // 4 members on 3 nodes is not one per node (NCCL's ppn is a float): the ring's network latency, not the
  // tree's that a rounded ranks_per_node of 1 picked. Ring LL all-gather: 6.6 + 1 x max(0.6, 1.0) + 2 x 2.7.
  EXPECT_TRUE(t.intra_hops);
  EXPECT_NEAR(1e6 * nccl_estimate(t, CollectiveKind::all_gather, NcclAlgorithm::ring, NcclProtocol::ll, 8)
                        .latency_seconds,
              13.0, 1e-9);
  // One GPU on nodes 1 and 2: one rail, one NIC each communicator uses alone.
  EXPECT_EQ(t.rails, 1);
  EXPECT_DOUBLE_EQ(t.inter_bus_bytes_per_second, 24e9);
}

// A calibrated class's rate is NCCL's bus bandwidth over its hops: NVLink inside a node, the network per
// NIC-sharing communicator across nodes; PCIe only when every hop class of the ring is calibrated (one
// calibrated class of three leaves NCCL's ladder); channels stay NCCL's. CollectiveCost prices with them.
TEST(NcclModel, ACalibrationsRatesBecomeNcclsBusBandwidths) {
  Calibration cal;
  cal.links[static_cast<std::size_t>(LinkClass::nvlink)] = LinkCalibration{1e-6, 150e9};
  cal.links[static_cast<std::size_t>(LinkClass::network)] = LinkCalibration{5e-6, 60e9};
  const Cluster dgx = cluster_preset("dgx-a100", 4);
  const NcclTopology nominal = nccl_topology(dgx, NcclGroup{32, 1, 1, 0});
  const NcclTopology calibrated = nccl_family(dgx, NcclGroup{32, 1, 1, 0}, cal).copies.front();
  EXPECT_DOUBLE_EQ(calibrated.intra_bus_bytes_per_second, 150e9);
  EXPECT_DOUBLE_EQ(calibrated.inter_bus_bytes_per_second, 60e9);
  EXPECT_EQ(calibrated.channels, nominal.channels);
  // Eight inter-group communicators (stride 8) each reach one NIC of a node, NIC i by communicator i.
  EXPECT_DOUBLE_EQ(nccl_family(dgx, NcclGroup{4, 8, 8, 1}, cal).copies.front().inter_bus_bytes_per_second,
                   60e9);
  const CollectiveCost cost(dgx, 8, cal, CollectiveModel::nccl);
  EXPECT_DOUBLE_EQ(cost.nccl(GroupKind::global)->inter_bus_bytes_per_second, 60e9);

  const Cluster pcie = cluster_preset("titan-rtx-8-pcie3");
  Calibration one_class;
  one_class.links[static_cast<std::size_t>(LinkClass::same_switch)] = LinkCalibration{3e-6, 20e9};
  EXPECT_DOUBLE_EQ(
      nccl_family(pcie, NcclGroup{8, 1, 1, 0}, one_class).copies.front().intra_bus_bytes_per_second,
      nccl_topology(pcie, NcclGroup{8, 1, 1, 0}).intra_bus_bytes_per_second);
  Calibration every_class = one_class;
  every_class.links[static_cast<std::size_t>(LinkClass::cross_switch)] = LinkCalibration{5e-6, 9e9};
  every_class.links[static_cast<std::size_t>(LinkClass::cross_socket)] = LinkCalibration{9e-6, 7e9};
  EXPECT_DOUBLE_EQ(
      nccl_family(pcie, NcclGroup{8, 1, 1, 0}, every_class).copies.front().intra_bus_bytes_per_second, 7e9);
}

// The cost model caches NCCL families: two clusters that differ only in a link the calibration overrides
// still get their own channels (NCCL's ladder reads the nominal link), not the first one's.
TEST(NcclModel, CachedFamiliesFollowTheNominalLinksUnderACalibration) {
  Calibration cal;
  cal.links[static_cast<std::size_t>(LinkClass::nvlink)] = LinkCalibration{1e-6, 150e9};
  const Cluster fast = cluster_preset("dgx-a100");
  Cluster slow = fast;
  slow.nvswitch.gpu_bytes_per_second /= 8;
  const int fast_channels = nccl_family(fast, NcclGroup{8, 1, 1, 0}, cal).copies.front().channels;
  const int slow_channels = nccl_family(slow, NcclGroup{8, 1, 1, 0}, cal).copies.front().channels;
  ASSERT_NE(fast_channels, slow_channels);
  EXPECT_EQ(CollectiveCost(fast, 8, cal, CollectiveModel::nccl).nccl(GroupKind::global)->channels,
            fast_channels);
  EXPECT_EQ(CollectiveCost(slow, 8, cal, CollectiveModel::nccl).nccl(GroupKind::global)->channels,
            slow_channels);
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
