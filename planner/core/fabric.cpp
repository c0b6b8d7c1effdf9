// Fabric paths and link capacities: the PCIe tree, NVSwitch ports, NICs and fat-tree uplinks of a cluster,
// with the calibration's per-class alpha and bandwidth applied to the links each class adds.
#include "planner/core/fabric.hpp"

#include <algorithm>
#include <cstdio>

namespace shardscope {
namespace {

enum class Kind : std::uint64_t { gpu_pcie = 1, switch_uplink, socket, nvlink, nic, leaf_uplink, pod_uplink };

// kind in bits 60-63, then three fields of 24, 18 and 18 bits (node or leaf, local index, second index).
std::uint64_t make_id(Kind kind, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
  return (static_cast<std::uint64_t>(kind) << 60) | (a << 36) | (b << 18) | c;
}
Kind kind_of(std::uint64_t id) { return static_cast<Kind>(id >> 60); }
std::uint64_t field_a(std::uint64_t id) { return (id >> 36) & ((1u << 24) - 1); }
std::uint64_t field_b(std::uint64_t id) { return (id >> 18) & ((1u << 18) - 1); }
std::uint64_t field_c(std::uint64_t id) { return id & ((1u << 18) - 1); }

const std::optional<LinkCalibration>& calibrated(const Calibration& cal, LinkClass lc) {
  return cal.links[static_cast<std::size_t>(lc)];
}

}  // namespace

Fabric::Fabric(const Cluster& cluster, const Calibration& cal) : cluster_(cluster) {
  PcieTopology& p = cluster_.pcie;
  gpu_link_latency_ = uplink_latency_ = socket_latency_ = p.latency_seconds;
  if (const auto& c = calibrated(cal, LinkClass::same_switch)) {
    p.gpu_link_bytes_per_second = c->bytes_per_second;
    gpu_link_latency_ = c->alpha_seconds / 2;  // two GPU links
  }
  if (const auto& c = calibrated(cal, LinkClass::cross_switch)) {
    p.switch_uplink_bytes_per_second = c->bytes_per_second;
    uplink_latency_ = std::max(0.0, (c->alpha_seconds - 2 * gpu_link_latency_) / 2);  // and two uplinks
  }
  if (const auto& c = calibrated(cal, LinkClass::cross_socket)) {
    p.inter_socket_bytes_per_second = c->bytes_per_second;
    socket_latency_ = std::max(0.0, c->alpha_seconds - 2 * gpu_link_latency_ - 2 * uplink_latency_);
  }
  nvlink_latency_ = cluster_.nvswitch.latency_seconds / 2;
  if (const auto& c = calibrated(cal, LinkClass::nvlink)) {
    cluster_.nvswitch.gpu_bytes_per_second = c->bytes_per_second;
    nvlink_latency_ = c->alpha_seconds / 2;
  }
  nic_latency_ = cluster_.network.latency_seconds / 2;
  if (const auto& c = calibrated(cal, LinkClass::network)) {
    cluster_.network.nic_bytes_per_second = c->bytes_per_second;
    nic_latency_ = c->alpha_seconds / 2;
  }
}

void Fabric::path(int a, int b, std::vector<FabricHop>& out) const {
  const Cluster& c = cluster_;
  const auto node_a = static_cast<std::uint64_t>(c.node_of(a)),
             node_b = static_cast<std::uint64_t>(c.node_of(b));
  const int la = a % c.gpus_per_node, lb = b % c.gpus_per_node;
  if (node_a != node_b) {
    const NetworkTopology& net = c.network;
    const auto nic = [&](int local) {
      return static_cast<std::uint64_t>(local * net.nics_per_node / c.gpus_per_node);
    };
    out.push_back({make_id(Kind::nic, node_a, nic(la)), true});
    std::uint64_t leaf_b = 0;
    bool cross_leaf = false;
    if (net.kind == NetworkKind::fat_tree && net.nodes_per_leaf > 0) {
      const std::uint64_t leaf_a = node_a / static_cast<std::uint64_t>(net.nodes_per_leaf);
      leaf_b = node_b / static_cast<std::uint64_t>(net.nodes_per_leaf);
      cross_leaf = leaf_a != leaf_b;
      if (cross_leaf) {
        out.push_back({make_id(Kind::leaf_uplink, leaf_a), true});
        if (net.leaves_per_pod > 0) {
          const std::uint64_t pod_a = leaf_a / static_cast<std::uint64_t>(net.leaves_per_pod);
          const std::uint64_t pod_b = leaf_b / static_cast<std::uint64_t>(net.leaves_per_pod);
          if (pod_a != pod_b) {
            out.push_back({make_id(Kind::pod_uplink, pod_a), true});
            out.push_back({make_id(Kind::pod_uplink, pod_b), false});
          }
        }
        out.push_back({make_id(Kind::leaf_uplink, leaf_b), false});
      }
    }
    out.push_back({make_id(Kind::nic, node_b, nic(lb)), false});
    return;
  }
  if (c.intra_node == IntraNodeKind::nvswitch) {
    out.push_back({make_id(Kind::nvlink, node_a, static_cast<std::uint64_t>(la)), true});
    out.push_back({make_id(Kind::nvlink, node_a, static_cast<std::uint64_t>(lb)), false});
    return;
  }
  const PcieTopology& p = c.pcie;
  const int sa = la / p.gpus_per_switch, sb = lb / p.gpus_per_switch;
  const int ka = sa / p.switches_per_socket, kb = sb / p.switches_per_socket;
  out.push_back({make_id(Kind::gpu_pcie, node_a, static_cast<std::uint64_t>(la)), true});
  if (sa != sb) {
    out.push_back({make_id(Kind::switch_uplink, node_a, static_cast<std::uint64_t>(sa)), true});
    if (ka != kb) {
      out.push_back({make_id(Kind::socket, node_a, static_cast<std::uint64_t>(std::min(ka, kb)),
                             static_cast<std::uint64_t>(std::max(ka, kb))),
                     ka < kb});
    }
    out.push_back({make_id(Kind::switch_uplink, node_a, static_cast<std::uint64_t>(sb)), false});
  }
  out.push_back({make_id(Kind::gpu_pcie, node_a, static_cast<std::uint64_t>(lb)), false});
}

FabricLink Fabric::link(std::uint64_t id) const {
  const Cluster& c = cluster_;
  const NetworkTopology& net = c.network;
  const double leaf_uplink =
      net.nodes_per_leaf * net.nics_per_node * net.nic_bytes_per_second / net.oversubscription;
  switch (kind_of(id)) {
    case Kind::gpu_pcie:
      return {c.pcie.gpu_link_bytes_per_second, gpu_link_latency_};
    case Kind::switch_uplink:
      return {c.pcie.switch_uplink_bytes_per_second, uplink_latency_};
    case Kind::socket:
      return {c.pcie.inter_socket_bytes_per_second, socket_latency_};
    case Kind::nvlink:
      return {c.nvswitch.gpu_bytes_per_second, nvlink_latency_};
    case Kind::nic:
      return {net.nic_bytes_per_second, nic_latency_};
    case Kind::leaf_uplink:
      return {leaf_uplink, 0.0};
    case Kind::pod_uplink:
      return {net.leaves_per_pod * leaf_uplink / net.spine_oversubscription, 0.0};
  }
  return {};
}

std::string Fabric::key() const {
  const Cluster& c = cluster_;
  const PcieTopology& p = c.pcie;
  const NetworkTopology& n = c.network;
  std::string out;
  char number[32];
  const auto add = [&](double x) {
    std::snprintf(number, sizeof number, "%a ", x);
    out += number;
  };
  for (double x : {double(c.nodes),
                   double(c.gpus_per_node),
                   double(static_cast<int>(c.intra_node)),
                   double(p.sockets),
                   double(p.switches_per_socket),
                   double(p.gpus_per_switch),
                   p.gpu_link_bytes_per_second,
                   p.switch_uplink_bytes_per_second,
                   p.inter_socket_bytes_per_second,
                   c.nvswitch.gpu_bytes_per_second,
                   double(static_cast<int>(n.kind)),
                   double(n.nics_per_node),
                   n.nic_bytes_per_second,
                   n.oversubscription,
                   double(n.nodes_per_leaf),
                   double(n.leaves_per_pod),
                   n.spine_oversubscription,
                   gpu_link_latency_,
                   uplink_latency_,
                   socket_latency_,
                   nvlink_latency_,
                   nic_latency_}) {
    add(x);
  }
  return out;
}

std::string Fabric::link_name(std::uint64_t id) {
  const std::string a = std::to_string(field_a(id)), b = std::to_string(field_b(id));
  switch (kind_of(id)) {
    case Kind::gpu_pcie:
      return "n" + a + ".gpu" + b + ".pcie";
    case Kind::switch_uplink:
      return "n" + a + ".sw" + b + ".uplink";
    case Kind::socket:
      return "n" + a + ".socket" + b + "-" + std::to_string(field_c(id));
    case Kind::nvlink:
      return "n" + a + ".gpu" + b + ".nvlink";
    case Kind::nic:
      return "n" + a + ".nic" + b;
    case Kind::leaf_uplink:
      return "leaf" + a + ".uplink";
    case Kind::pod_uplink:
      return "pod" + a + ".uplink";
  }
  return "link" + std::to_string(id);
}

}  // namespace shardscope
