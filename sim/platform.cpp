// Platform construction: one full zone, a split-duplex SimGrid link per fabric link (planner/core/fabric.hpp:
// GPU ports, switch uplinks, socket links, NICs, fat-tree uplinks, calibrated), and explicit routes for the
// pairs that communicate (so paths never run through other GPUs).
#include "sim/platform.hpp"

#include <map>
#include <simgrid/s4u.hpp>
#include <unordered_map>

#include "planner/core/fabric.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {

struct Platform::Impl {
  const Cluster& cluster;
  Fabric fabric;
  sg4::NetZone* zone = nullptr;
  std::vector<sg4::Host*> hosts;
  std::unordered_map<std::uint64_t, sg4::Link*> links;
  std::map<std::pair<int, int>, std::vector<Platform::RouteHop>> routes;

  Impl(const Cluster& c, const Calibration& calibration) : cluster(c), fabric(c, calibration) {}

  // The SimGrid link of a fabric link, created on first use with the fabric's capacity and latency.
  sg4::Link* link(std::uint64_t id) {
    auto it = links.find(id);
    if (it != links.end()) return it->second;
    const FabricLink f = fabric.link(id);
    sg4::Link* l = zone->create_split_duplex_link(Fabric::link_name(id), f.bytes_per_second)
                       ->set_latency(f.latency_seconds)
                       ->seal();
    links.emplace(id, l);
    return l;
  }
};

Platform::Platform(const Cluster& cluster, const Calibration& calibration,
                   const std::vector<std::pair<int, int>>& routed_pairs)
    : impl_(std::make_unique<Impl>(cluster, calibration)) {
  try {
    impl_->zone = sg4::create_full_zone("cluster");
    const double speed = cluster.gpu.peak_flops_per_second_fp16 * cluster.gpu.achievable_fraction;
    for (int r = 0; r < cluster.gpus(); ++r) {
      impl_->hosts.push_back(impl_->zone->create_host("gpu" + std::to_string(r), speed)->seal());
    }
    std::vector<FabricHop> fabric_path;
    for (const auto& [a, b] : routed_pairs) {
      if (a == b) continue;
      fabric_path.clear();
      impl_->fabric.path(a, b, fabric_path);
      std::vector<sg4::LinkInRoute> path;
      std::vector<RouteHop>& hops = impl_->routes[{a, b}];
      for (const FabricHop& hop : fabric_path) {
        sg4::Link* l = impl_->link(hop.link);
        path.emplace_back(l, hop.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
        hops.push_back({l->get_name(), hop.up, l->get_bandwidth()});
      }
      impl_->zone->add_route(impl_->hosts[static_cast<std::size_t>(a)]->get_netpoint(),
                             impl_->hosts[static_cast<std::size_t>(b)]->get_netpoint(), nullptr, nullptr,
                             path, false);
    }
    impl_->zone->seal();
  } catch (const std::exception& e) {
    throw SimulationError(std::string("building the platform failed: ") + e.what());
  }
}

Platform::~Platform() = default;

sg4::Host* Platform::host(int rank) const { return impl_->hosts.at(static_cast<std::size_t>(rank)); }
const std::vector<Platform::RouteHop>& Platform::route(int a, int b) const {
  static const std::vector<RouteHop> none;
  const auto it = impl_->routes.find({a, b});
  return it == impl_->routes.end() ? none : it->second;
}

int Platform::gpus() const { return static_cast<int>(impl_->hosts.size()); }

}  // namespace shardscope::sim
