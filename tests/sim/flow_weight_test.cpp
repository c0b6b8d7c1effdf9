// FlowWeight: a flow weighted as k flows takes k shares of a shared route under SimGrid's max-min sharing.
#include "sim/flow_weight.hpp"

#include <gtest/gtest.h>

#include <map>
#include <simgrid/s4u.hpp>
#include <vector>

#include "planner/io/cluster_presets.hpp"
#include "sim/engine.hpp"
#include "sim/platform.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

namespace sg4 = simgrid::s4u;

// Two flows of X bytes start together on one route of bottleneck rate R, without its latency (their caller
// waits it): weighted 3 to 1, the first moves at 3R/4 and ends at 4X/(3R); the second then has the route
// alone and ends at 2X/R (both ended at 2X/R unweighted).
TEST(FlowWeight, AFlowWeightedAsThreeTakesThreeSharesOfItsRoute) {
  const Cluster c = cluster_preset("titan-rtx-8-pcie3");
  sg4::Engine& engine = create_engine();
  const Platform platform(c, Calibration{}, {{0, 1}});
  double rate = 0, latency = 0;
  bool first = true;
  for (const Platform::RouteHop& hop : platform.route(0, 1)) {
    rate = first ? hop.bytes_per_second : std::min(rate, hop.bytes_per_second);
    first = false;
    const sg4::Link* link = engine.split_duplex_link_by_name(hop.link)->get_link_up();
    latency += link->get_latency();
  }
  ASSERT_FALSE(first);
  const FlowWeight weight;
  std::map<const void*, double> ended;
  sg4::Activity::on_completion_cb(
      [&](const sg4::Activity& a) { ended[a.get_data<void>()] = sg4::Engine::get_clock(); });
  constexpr double kBytes = 1e9;
  int heavy = 0, light = 0;
  std::vector<sg4::CommPtr> flows;  // held until they end
  for (int* tag : {&heavy, &light}) {
    sg4::CommPtr flow = sg4::Comm::sendto_init(platform.host(0), platform.host(1));
    flow->set_payload_size(static_cast<std::uint64_t>(kBytes));
    flow->set_data(tag);
    weight.start(*flow, kBytes, tag == &heavy ? 3 : 1, latency);
    flows.push_back(flow);
  }
  engine.run();
  ASSERT_EQ(ended.size(), 2U);
  EXPECT_GT(latency, 0);
  EXPECT_NEAR(ended[&heavy], 4 * kBytes / (3 * rate), 1e-9 * ended[&heavy]);
  EXPECT_NEAR(ended[&light], 2 * kBytes / rate, 1e-9 * ended[&light]);
}

// A payload that is not the newest action's, or fewer than one flow, is an error, never a wrong flow
// weighted.
TEST(FlowWeight, AnotherFlowOrNoFlowIsRefused) {
  const Cluster c = cluster_preset("titan-rtx-8-pcie3");
  create_engine();
  const Platform platform(c, Calibration{}, {{0, 1}});
  const FlowWeight weight;
  sg4::CommPtr flow = sg4::Comm::sendto_init(platform.host(0), platform.host(1));
  flow->set_payload_size(1000);
  EXPECT_THROW(weight.start(*flow, 2000, 2, 1e-6), SimulationError);
  flow->cancel();
  sg4::CommPtr none = sg4::Comm::sendto_init(platform.host(0), platform.host(1));
  none->set_payload_size(1000);
  EXPECT_THROW(weight.start(*none, 1000, 0, 1e-6), SimulationError);
  none->cancel();
}

}  // namespace
}  // namespace shardscope::sim
