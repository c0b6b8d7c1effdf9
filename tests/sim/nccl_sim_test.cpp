// Simulated NCCL collectives: equal to NCCL's formula (planner/cost/nccl_model) when alone on every shipped
// cluster and for communicators not aligned with nodes, the published nccl-tests figures in simulation, and
// contention between concurrent copies.
#include <gtest/gtest.h>

#include "planner/core/error.hpp"
#include "planner/cost/nccl_model.hpp"
#include "planner/io/cluster_presets.hpp"
#include "sim/collective_sim.hpp"
#include "sim/isolated.hpp"

namespace shardscope::sim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

CollectiveRequest nccl_request(CollectiveKind kind, double bytes = 0) {
  CollectiveRequest r;
  r.kind = kind;
  r.algorithm = CollectiveAlgorithm::nccl;
  r.total_bytes = bytes;
  return r;
}

struct Shipped {
  const char* preset;
  int nodes;  // 0: the preset's own
};

TEST(NcclSim, EqualsNcclsFormulaOnEveryShippedCluster) {
  // Every protocol regime (LL, LL128, Simple), ring and tree: the fitted flows reproduce NCCL's latency
  // and bandwidth terms exactly (SimGrid's CM02 model: latency + bytes / max-min share), uncalibrated and
  // with every link class calibrated (its rates then NCCL's bus bandwidths).
  const std::vector<double> sizes = {8, 4096, kMiB, 64 * kMiB, 1024 * kMiB};
  Calibration every_class;
  for (const LinkClass lc : values<LinkClass>())
    every_class.links[static_cast<std::size_t>(lc)] =
        LinkCalibration{0.5e-6, lc == LinkClass::nvlink ? 150e9 : 9e9};
  bool tree_seen = false, ll_seen = false, simple_seen = false;
  for (const Calibration& cal : {Calibration{}, every_class}) {
    for (const Shipped s :
         {Shipped{"dgx-a100", 1}, Shipped{"dgx-a100", 2}, Shipped{"dgx-a100", 4}, Shipped{"dgx-h100", 1},
          Shipped{"dgx-h100", 4}, Shipped{"a100-40gb-2x8-100gbe", 0}, Shipped{"titan-rtx-8-pcie3", 0}}) {
      const Cluster c = s.nodes > 0 ? cluster_preset(s.preset, s.nodes) : cluster_preset(s.preset);
      for (const CollectiveKind kind :
           {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter}) {
        CollectiveRequest r = nccl_request(kind);
        const std::vector<double> simulated = run_isolated([&] {
          std::vector<double> out;
          for (const CollectiveResult& res : simulate_collective_sweep(c, r, sizes, cal)) {
            out.push_back(res.seconds);
            out.push_back(res.nccl_algorithm == "tree" ? 1 : 0);
            out.push_back(res.nccl_protocol == "LL" ? 1 : res.nccl_protocol == "Simple" ? 2 : 0);
          }
          return out;
        });
        ASSERT_EQ(simulated.size(), 3 * sizes.size());
        for (std::size_t k = 0; k < sizes.size(); ++k) {
          r.total_bytes = sizes[k];
          const double formula = alpha_beta_collective_seconds(c, r, cal);
          // ... which is what the planner charges for the whole cluster's group under the nccl model.
          const CollectiveCost planner(c, c.gpus_per_node, cal, CollectiveModel::nccl);
          EXPECT_DOUBLE_EQ(formula, planner.seconds(kind, GroupKind::global, sizes[k]));
          // SimGrid advances time to 1 ns (precision/timing 1e-9 s): 8-byte collectives agree to that.
          EXPECT_NEAR(simulated[3 * k], formula, 1e-9 * formula + 1e-9)
              << s.preset << " x" << c.nodes << " " << to_string(kind) << " " << sizes[k] << " B";
          tree_seen = tree_seen || simulated[3 * k + 1] == 1;
          ll_seen = ll_seen || simulated[3 * k + 2] == 1;
          simple_seen = simple_seen || simulated[3 * k + 2] == 2;
        }
      }
    }
  }
  EXPECT_TRUE(tree_seen);
  EXPECT_TRUE(ll_seen);
  EXPECT_TRUE(simple_seen);
}

TEST(NcclSim, UnevenGroupsEqualThePlanner) {
  // Communicators not aligned with the nodes of three DGX-A100s: the intra family of 12-GPU groups (8 + 4
  // and 4 + 8 GPUs per node) and the strided inter families of 6- and 3-GPU groups (ranks i x 6 sit
  // 2 + 1 + 1, ranks i x 3 sit 3 + 3 + 2), every communicator of the family at once, as a plan runs them.
  const Cluster c = cluster_preset("dgx-a100", 3);
  const std::vector<double> sizes = {8, 4096, kMiB, 64 * kMiB, 1024 * kMiB};
  struct Family {
    int group_size;
    GroupKind group;
  };
  bool tree_seen = false;
  for (const Family f :
       {Family{12, GroupKind::intra}, Family{6, GroupKind::inter}, Family{3, GroupKind::inter}}) {
    const CollectiveCost planner(c, f.group_size, Calibration{}, CollectiveModel::nccl);
    for (const CollectiveKind kind :
         {CollectiveKind::all_gather, CollectiveKind::reduce_scatter, CollectiveKind::all_reduce}) {
      CollectiveRequest r = nccl_request(kind);
      r.group_size = f.group_size;
      r.nccl_group = f.group;
      const std::vector<double> simulated = run_isolated([&] {
        std::vector<double> out;
        for (const CollectiveResult& res : simulate_collective_sweep(c, r, sizes)) {
          out.push_back(res.seconds);
          out.push_back(res.nccl_algorithm == "tree" ? 1 : 0);
        }
        return out;
      });
      ASSERT_EQ(simulated.size(), 2 * sizes.size());
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        r.total_bytes = sizes[k];
        const double formula = alpha_beta_collective_seconds(c, r);
        EXPECT_DOUBLE_EQ(formula, planner.seconds(kind, f.group, sizes[k]));
        EXPECT_NEAR(simulated[2 * k], formula, 1e-9 * formula + 1e-9)
            << "group size " << f.group_size << " " << to_string(f.group) << " " << to_string(kind) << " "
            << sizes[k] << " B";
        tree_seen = tree_seen || simulated[2 * k + 1] == 1;
      }
    }
  }
  EXPECT_TRUE(tree_seen);  // the tree's uneven chains too
}

// Simulated busbw of one collective, in GB/s.
double simulated_busbw(const Cluster& c, CollectiveKind kind, double bytes) {
  return run_isolated([&] {
    return std::vector<double>{simulate_collective(c, nccl_request(kind, bytes)).busbw_bytes_per_second /
                               1e9};
  })[0];
}

void expect_within(double value, double low, double high, double tolerance) {
  EXPECT_GE(value, low * (1 - tolerance));
  EXPECT_LE(value, high * (1 + tolerance));
}

// The switch and tree algorithms as flows: NVLS on one H100 node, NVLSTree on two, PAT on sixteen nodes of
// one GPU each: each simulated alone equals NCCL's formula, under the algorithm NCCL's pick names.
TEST(NcclSim, NvlsNvlsTreeAndPatEqualTheirFormulas) {
  Cluster pat = cluster_preset("dgx-h100", 16);
  pat.gpus_per_node = 1;
  pat.network.nics_per_node = 1;
  struct Case {
    Cluster cluster;
    CollectiveKind kind;
    double bytes;
    const char* algorithm;
  };
  for (const Case& c :
       {Case{cluster_preset("dgx-h100"), CollectiveKind::all_reduce, 1024 * kMiB, "NVLS"},
        Case{cluster_preset("dgx-h100", 2), CollectiveKind::all_reduce, 1024 * kMiB, "NVLSTree"},
        Case{pat, CollectiveKind::all_gather, kMiB, "PAT"},
        Case{pat, CollectiveKind::reduce_scatter, 4 * kMiB, "PAT"}}) {
    const CollectiveRequest r = nccl_request(c.kind, c.bytes);
    std::string algorithm;
    const std::vector<double> simulated = run_isolated([&] {
      const CollectiveResult res = simulate_collective(c.cluster, r);
      return std::vector<double>{res.seconds, res.nccl_algorithm == c.algorithm ? 1.0 : 0.0};
    });
    const double formula = alpha_beta_collective_seconds(c.cluster, r, Calibration{});
    EXPECT_EQ(simulated[1], 1.0) << c.algorithm;
    EXPECT_NEAR(simulated[0], formula, 1e-9 * formula + 1e-9) << c.algorithm;
  }
}

TEST(NcclSim, PublishedBusBandwidthsHoldInSimulation) {
  const double size = 1024 * kMiB;
  // nccl-tests#175 / #149: 8 x A100 SXM on NVSwitch, all-reduce ~230 GB/s.
  const double a100 = simulated_busbw(cluster_preset("dgx-a100"), CollectiveKind::all_reduce, size);
  expect_within(a100, 230, 230, 0.10);
  // NVIDIA/nccl#812 via #1576: DGX-A100 nodes with 8 x 200 Gb HDR, 192 GB/s.
  expect_within(simulated_busbw(cluster_preset("dgx-a100", 4), CollectiveKind::all_reduce, size), 192, 192,
                0.10);
  // nccl-tests#29, nccl#307: two nodes with one 100 Gb/s NIC each, ~12 GB/s.
  expect_within(simulated_busbw(cluster_preset("a100-40gb-2x8-100gbe"), CollectiveKind::all_reduce, size), 12,
                12, 0.10);
  // nccl-tests#290: 8 x H100 all-reduce 465-477 GB/s from 1 GiB, NVLS (the ring's ~370 is NCCL_ALGO=Ring).
  expect_within(simulated_busbw(cluster_preset("dgx-h100"), CollectiveKind::all_reduce, size), 465, 477,
                0.03);
  // nccl#406: 8 GPUs on PCIe Gen3 behind switches, 10-12 GB/s.
  expect_within(simulated_busbw(cluster_preset("titan-rtx-8-pcie3"), CollectiveKind::all_reduce, size), 10,
                12, 0.10);
  // Below 64 MiB the issue allows +-25 % of the same figure: 32 MiB on the A100 box.
  expect_within(simulated_busbw(cluster_preset("dgx-a100"), CollectiveKind::all_reduce, 32 * kMiB), 230, 230,
                0.25);
}

// A calibration reaches NCCL-priced collectives: measured NVLink and network rates become the bus bandwidths
// (busbw within 3 % of them at 1 GiB, where latency is a small part), and the simulation still equals the
// planner's formula. (Before, NCCL's ladder of the nominal links ignored them: 238 GB/s whatever was
// measured.)
TEST(NcclSim, ACalibrationsRatesReachNcclCollectives) {
  const double size = 1024 * kMiB;
  Calibration calibration;
  calibration.links[static_cast<std::size_t>(LinkClass::nvlink)] = LinkCalibration{2e-6, 150e9};
  calibration.links[static_cast<std::size_t>(LinkClass::network)] = LinkCalibration{10e-6, 60e9};
  for (const int nodes : {1, 4}) {
    const Cluster c = cluster_preset("dgx-a100", nodes);
    const CollectiveRequest request = nccl_request(CollectiveKind::all_reduce, size);
    const std::vector<double> r = run_isolated([&] {
      const CollectiveResult sim = simulate_collective(c, request, calibration);
      return std::vector<double>{sim.seconds, sim.busbw_bytes_per_second / 1e9};
    });
    const double formula = alpha_beta_collective_seconds(c, request, calibration);
    EXPECT_NEAR(r[0], formula, 1e-9 * formula + 1e-9) << nodes << " nodes";
    expect_within(r[1], nodes == 1 ? 150 : 60, nodes == 1 ? 150 : 60, 0.03);
    EXPECT_LT(r[1], nodes == 1 ? 150 : 60) << "a calibrated rate is the ceiling";
  }
}

TEST(NcclSim, NcclsWorkedLlLatencyOnEightPcieGpus) {
  // NCCL's model arithmetic (calibration notes section 2): 8-GPU PCIe ring LL all-reduce ~20.6 us.
  const CollectiveResult r =
      simulate_collective(cluster_preset("titan-rtx-8-pcie3"), nccl_request(CollectiveKind::all_reduce, 8));
  EXPECT_EQ(r.nccl_algorithm, "ring");
  EXPECT_EQ(r.nccl_protocol, "LL");
  EXPECT_NEAR(r.seconds * 1e6, 21, 21 * 0.25);
  EXPECT_NEAR(r.seconds * 1e6, 20.6, 0.01);
}

TEST(NcclSim, TwoConcurrentCopiesShareEveryLink) {
  // Two NCCL all-reduces at once across 2 DGX-A100 nodes: each flow's links carry twice the flows, so the
  // bandwidth term doubles and the latency stays.
  const Cluster c = cluster_preset("dgx-a100", 2);
  CollectiveRequest r = nccl_request(CollectiveKind::all_reduce, 1024 * kMiB);
  const NcclEstimate e = nccl_pick(nccl_topology(c, NcclGroup{16, 1, 1, 0}), r.kind, r.total_bytes);
  r.concurrent = 2;
  const double expected = e.latency_seconds + 2 * e.bandwidth_seconds;
  EXPECT_NEAR(simulate_collective(c, r).seconds, expected, 1e-9 * expected);
}

TEST(NcclSim, SweepSizesDoubleAndRejectBadRanges) {
  EXPECT_EQ(sweep_sizes(8, 64, "sweep"), (std::vector<double>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(8, 100, "sweep").back(), 64);
  EXPECT_EQ(sweep_sizes(8, 8, "sweep").size(), 1u);
  EXPECT_THROW(sweep_sizes(0, 8, "sweep"), InputError);
  EXPECT_THROW(sweep_sizes(64, 8, "sweep"), InputError);
  EXPECT_THROW(sweep_sizes(8, 4e15, "sweep"), InputError);
}

}  // namespace
}  // namespace shardscope::sim
