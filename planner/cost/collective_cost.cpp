// Ring collective costs: bottleneck link of the ring (by link class, calibratable) and the alpha-beta
// formula.
#include "planner/cost/collective_cost.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "planner/cost/nccl_model.hpp"

namespace shardscope {

int ring_steps(CollectiveKind kind, int ranks) {
  return (kind == CollectiveKind::all_reduce ? 2 : 1) * (ranks - 1);
}

double alpha_beta_seconds(double alpha_seconds, int steps, double bytes_per_step, double bytes_per_second) {
  return steps * (alpha_seconds + bytes_per_step / bytes_per_second);
}

// The rings of one group kind that run at once when every group executes the collective: intra, one ring per
// group of M consecutive ranks; inter, one ring per position in a group (stride M); global, one ring.
struct RingFamily {
  int rings = 1;      // rings running at once
  int ring_step = 0;  // rank offset from one ring's first member to the next ring's
  int stride = 1;     // rank offset between consecutive members of a ring
  int ranks = 1;      // members of each ring
};

namespace {

// Flows leaving the busiest node over the network, summed over the family's concurrent rings.
int network_flows_per_node(const Cluster& cluster, const RingFamily& family) {
  std::vector<int> flows(static_cast<std::size_t>(cluster.nodes), 0);
  for (int r = 0; r < family.rings; ++r) {
    const int first = r * family.ring_step;
    for (int i = 0; i < family.ranks; ++i) {
      const int a = first + i * family.stride;
      const int b = first + ((i + 1) % family.ranks) * family.stride;
      if (cluster.node_of(a) != cluster.node_of(b)) ++flows[static_cast<std::size_t>(cluster.node_of(a))];
    }
  }
  return std::max(1, *std::max_element(flows.begin(), flows.end()));
}

}  // namespace

CollectiveCost::CollectiveCost(const Cluster& cluster, int group_size, const Calibration& calibration,
                               CollectiveModel model)
    : calibration_(calibration), model_(model) {
  const int n = cluster.gpus();
  intra_ = make_ring(cluster, RingFamily{n / group_size, group_size, 1, group_size});
  inter_ = make_ring(cluster, RingFamily{group_size, 1, group_size, n / group_size});
  global_ = make_ring(cluster, RingFamily{1, 0, 1, n});
  if (model_ == CollectiveModel::nccl) {  // the same three families, as NCCL communicators
    nccl_[static_cast<std::size_t>(GroupKind::intra)] = std::make_shared<const NcclTopology>(
        nccl_topology(cluster, NcclGroup{group_size, 1, n / group_size, group_size}));
    nccl_[static_cast<std::size_t>(GroupKind::inter)] = std::make_shared<const NcclTopology>(
        nccl_topology(cluster, NcclGroup{n / group_size, group_size, group_size, 1}));
    nccl_[static_cast<std::size_t>(GroupKind::global)] =
        std::make_shared<const NcclTopology>(nccl_topology(cluster, NcclGroup{n, 1, 1, 0}));
  }
}

RingLink CollectiveCost::make_ring(const Cluster& cluster, const RingFamily& family) const {
  RingLink ring;
  ring.ranks = family.ranks;
  if (family.ranks <= 1) return ring;
  ring.bytes_per_second = std::numeric_limits<double>::infinity();
  int flows = 0;  // network flows of the busiest node, counted once (a pass over every rank)
  for (int i = 0; i < family.ranks; ++i) {
    const int a = i * family.stride;
    const int b = ((i + 1) % family.ranks) * family.stride;
    const LinkClass lc = link_class_between(cluster, a, b);
    LinkProperties p = link_properties(cluster, lc);
    if (lc == LinkClass::network) {
      // The node's NICs are shared by the flows that leave it at once (rail-aligned: each flow keeps to one
      // NIC): a lone global ring gets a whole NIC, one inter-group ring per GPU of the node a NIC share.
      const NetworkTopology& net = cluster.network;
      if (flows == 0) flows = network_flows_per_node(cluster, family);
      p.bytes_per_second =
          std::min(net.nic_bytes_per_second, net.nic_bytes_per_second * net.nics_per_node / flows);
    }
    if (const auto& c = calibration_.links[static_cast<std::size_t>(lc)]) {
      p.bytes_per_second = c->bytes_per_second;
      p.latency_seconds = c->alpha_seconds;
    }
    ring.bytes_per_second = std::min(ring.bytes_per_second, p.bytes_per_second);
    ring.alpha_seconds = std::max(ring.alpha_seconds, p.latency_seconds);
  }
  return ring;
}

int CollectiveCost::group_ranks(GroupKind group) const { return ring(group).ranks; }

const RingLink& CollectiveCost::ring(GroupKind group) const {
  switch (group) {
    case GroupKind::intra:
      return intra_;
    case GroupKind::inter:
      return inter_;
    case GroupKind::global:
      return global_;
  }
  return global_;
}

double CollectiveCost::seconds(CollectiveKind kind, GroupKind group, double total_bytes) const {
  const RingLink& r = ring(group);
  if (r.ranks <= 1 || total_bytes <= 0) return 0;
  if (model_ == CollectiveModel::nccl) return nccl_pick(*nccl(group), kind, total_bytes).seconds();
  const int steps = ring_steps(kind, r.ranks);
  // A message at efficiency e occupies the link like bytes / e at full bandwidth.
  const double message = total_bytes / r.ranks;
  return alpha_beta_seconds(r.alpha_seconds, steps,
                            message / message_efficiency_factor(calibration_, message), r.bytes_per_second);
}

}  // namespace shardscope
