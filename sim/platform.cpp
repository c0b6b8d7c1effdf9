// Platform construction: one full zone, split-duplex links per GPU port, switch uplink, socket link and NIC,
// and explicit routes for the pairs that communicate (so paths never run through other GPUs).
#include "sim/platform.hpp"

#include <map>
#include <simgrid/s4u.hpp>

#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {

struct Platform::Impl {
  const Cluster& cluster;
  sg4::NetZone* zone = nullptr;
  std::vector<sg4::Host*> hosts;
  std::map<std::string, sg4::Link*> links;
  std::map<std::pair<int, int>, std::vector<Platform::RouteHop>> routes;

  explicit Impl(const Cluster& c) : cluster(c) {}

  sg4::Link* link(const std::string& name, double bytes_per_second, double latency_seconds) {
    auto it = links.find(name);
    if (it != links.end()) return it->second;
    sg4::Link* l =
        zone->create_split_duplex_link(name, bytes_per_second)->set_latency(latency_seconds)->seal();
    links.emplace(name, l);
    return l;
  }

  using Hop = sg4::LinkInRoute;
  using Dir = sg4::LinkInRoute::Direction;

  // Links from a GPU up to the point where paths inside its node meet, for the PCIe tree.
  std::vector<Hop> intra_path(int a, int b) {
    const int node = cluster.node_of(a);
    const std::string prefix = "n" + std::to_string(node) + ".";
    const int la = a % cluster.gpus_per_node, lb = b % cluster.gpus_per_node;
    std::vector<Hop> path;
    if (cluster.intra_node == IntraNodeKind::nvswitch) {
      const double lat = cluster.nvswitch.latency_seconds / 2;
      path.emplace_back(
          link(prefix + "gpu" + std::to_string(la) + ".nvlink", cluster.nvswitch.gpu_bytes_per_second, lat),
          Dir::UP);
      path.emplace_back(
          link(prefix + "gpu" + std::to_string(lb) + ".nvlink", cluster.nvswitch.gpu_bytes_per_second, lat),
          Dir::DOWN);
      return path;
    }
    const PcieTopology& p = cluster.pcie;
    const double lat = p.latency_seconds;
    const int sa = la / p.gpus_per_switch, sb = lb / p.gpus_per_switch;
    const int ka = sa / p.switches_per_socket, kb = sb / p.switches_per_socket;
    path.emplace_back(link(prefix + "gpu" + std::to_string(la) + ".pcie", p.gpu_link_bytes_per_second, lat),
                      Dir::UP);
    if (sa != sb) {
      path.emplace_back(
          link(prefix + "sw" + std::to_string(sa) + ".uplink", p.switch_uplink_bytes_per_second, lat),
          Dir::UP);
      if (ka != kb) {
        const int lo = std::min(ka, kb), hi = std::max(ka, kb);
        path.emplace_back(link(prefix + "socket" + std::to_string(lo) + "-" + std::to_string(hi),
                               p.inter_socket_bytes_per_second, lat),
                          ka < kb ? Dir::UP : Dir::DOWN);
      }
      path.emplace_back(
          link(prefix + "sw" + std::to_string(sb) + ".uplink", p.switch_uplink_bytes_per_second, lat),
          Dir::DOWN);
    }
    path.emplace_back(link(prefix + "gpu" + std::to_string(lb) + ".pcie", p.gpu_link_bytes_per_second, lat),
                      Dir::DOWN);
    return path;
  }

  sg4::Link* nic_of(int rank) {
    const NetworkTopology& net = cluster.network;
    const int node = cluster.node_of(rank);
    const int local = rank % cluster.gpus_per_node;
    const int nic = local * net.nics_per_node / cluster.gpus_per_node;
    return link("n" + std::to_string(node) + ".nic" + std::to_string(nic), net.nic_bytes_per_second,
                net.latency_seconds / 2);
  }

  std::vector<Hop> network_path(int a, int b) {
    const NetworkTopology& net = cluster.network;
    std::vector<Hop> path;
    path.emplace_back(nic_of(a), Dir::UP);
    if (net.kind == NetworkKind::fat_tree && net.nodes_per_leaf > 0) {
      const int leaf_a = cluster.node_of(a) / net.nodes_per_leaf,
                leaf_b = cluster.node_of(b) / net.nodes_per_leaf;
      if (leaf_a != leaf_b) {
        const double up =
            net.nodes_per_leaf * net.nics_per_node * net.nic_bytes_per_second / net.oversubscription;
        path.emplace_back(link("leaf" + std::to_string(leaf_a) + ".uplink", up, 0), Dir::UP);
        path.emplace_back(link("leaf" + std::to_string(leaf_b) + ".uplink", up, 0), Dir::DOWN);
      }
    }
    path.emplace_back(nic_of(b), Dir::DOWN);
    return path;
  }
};

Platform::Platform(const Cluster& cluster, const std::vector<std::pair<int, int>>& routed_pairs)
    : impl_(std::make_unique<Impl>(cluster)) {
  try {
    impl_->zone = sg4::create_full_zone("cluster");
    const double speed = cluster.gpu.peak_flops_per_second_fp16 * cluster.gpu.achievable_fraction;
    for (int r = 0; r < cluster.gpus(); ++r) {
      impl_->hosts.push_back(impl_->zone->create_host("gpu" + std::to_string(r), speed)->seal());
    }
    for (const auto& [a, b] : routed_pairs) {
      if (a == b) continue;
      const auto path =
          cluster.node_of(a) == cluster.node_of(b) ? impl_->intra_path(a, b) : impl_->network_path(a, b);
      std::vector<RouteHop>& hops = impl_->routes[{a, b}];
      for (const auto& hop : path) {
        hops.push_back({hop.get_link()->get_name(), hop.get_direction() != sg4::LinkInRoute::Direction::DOWN,
                        hop.get_link()->get_bandwidth()});
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
