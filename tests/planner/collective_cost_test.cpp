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

}  // namespace
}  // namespace shardscope
