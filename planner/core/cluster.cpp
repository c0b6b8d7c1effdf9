// Link classes of a cluster: which path joins two GPUs and what bandwidth and latency it offers.
#include "planner/core/cluster.hpp"

#include <algorithm>

namespace shardscope {

LinkClass link_class_between(const Cluster& cluster, int rank_a, int rank_b) {
  if (cluster.node_of(rank_a) != cluster.node_of(rank_b)) return LinkClass::network;
  if (cluster.intra_node == IntraNodeKind::nvswitch) return LinkClass::nvlink;
  const PcieTopology& pcie = cluster.pcie;
  const int local_a = rank_a % cluster.gpus_per_node;
  const int local_b = rank_b % cluster.gpus_per_node;
  const int switch_a = local_a / pcie.gpus_per_switch;
  const int switch_b = local_b / pcie.gpus_per_switch;
  if (switch_a == switch_b) return LinkClass::same_switch;
  const int socket_a = switch_a / pcie.switches_per_socket;
  const int socket_b = switch_b / pcie.switches_per_socket;
  return socket_a == socket_b ? LinkClass::cross_switch : LinkClass::cross_socket;
}

LinkProperties link_properties(const Cluster& cluster, LinkClass link_class) {
  const PcieTopology& pcie = cluster.pcie;
  LinkProperties out;
  switch (link_class) {
    case LinkClass::same_switch:
      out.bytes_per_second = pcie.gpu_link_bytes_per_second;
      out.latency_seconds = 2 * pcie.latency_seconds;
      break;
    case LinkClass::cross_switch:
      out.bytes_per_second = std::min(pcie.gpu_link_bytes_per_second, pcie.switch_uplink_bytes_per_second);
      out.latency_seconds = 4 * pcie.latency_seconds;
      break;
    case LinkClass::cross_socket:
      out.bytes_per_second = std::min({pcie.gpu_link_bytes_per_second, pcie.switch_uplink_bytes_per_second,
                                       pcie.inter_socket_bytes_per_second});
      out.latency_seconds = 5 * pcie.latency_seconds;
      break;
    case LinkClass::nvlink:
      out.bytes_per_second = cluster.nvswitch.gpu_bytes_per_second;
      out.latency_seconds = cluster.nvswitch.latency_seconds;
      break;
    case LinkClass::network:
      // A lone flow has its NIC to itself; how many flows share a NIC at once is the cost model's count of
      // flows per link direction (CollectiveCost), not a fixed per-GPU share.
      out.bytes_per_second = cluster.network.nic_bytes_per_second;
      out.latency_seconds = cluster.network.latency_seconds;
      break;
  }
  return out;
}

std::vector<LinkClass> link_classes_present(const Cluster& cluster) {
  std::vector<LinkClass> out;
  if (cluster.intra_node == IntraNodeKind::nvswitch) {
    if (cluster.gpus_per_node > 1) out.push_back(LinkClass::nvlink);
  } else {
    const PcieTopology& pcie = cluster.pcie;
    if (pcie.gpus_per_switch > 1) out.push_back(LinkClass::same_switch);
    if (pcie.switches_per_socket > 1) out.push_back(LinkClass::cross_switch);
    if (pcie.sockets > 1) out.push_back(LinkClass::cross_socket);
  }
  if (cluster.nodes > 1) out.push_back(LinkClass::network);
  return out;
}

}  // namespace shardscope
