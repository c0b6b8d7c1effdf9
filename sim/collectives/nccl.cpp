// NCCL's collectives as SimGrid flows: one ring per channel over rail-aligned routes, or the double binary
// tree of nodes with a chain inside each node, fitted so that a lone collective takes NCCL's estimate.
#include <algorithm>
#include <cmath>
#include <map>
#include <simgrid/s4u.hpp>
#include <tuple>

#include "sim/collectives/schedule.hpp"
#include "sim/platform.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {

// Appends one communicator's flows (its members are the topology's own ranks) under NCCL's pick `estimate`.
// `add(name, from, to, bytes)` receives each flow.
// NVLS: each member's buffer goes up to its node's switch once and the result comes down once (all-reduce:
// the whole buffer both ways; all-gather and reduce-scatter: the (n - 1) / n the member lacks), drawn as one
// flow per member to the next in the node, so every member's NVLink carries that much each way. NVLSTree
// adds NCCL's tree across the node heads (half the buffer per tree, up and down). PAT moves what a ring
// does over the nodes: (n - 1) / n of the buffer through each member's NIC, one flow per member.
template <typename Add>
void append_switch_flows(const NcclTopology& topology, CollectiveKind kind, double total_bytes,
                         const NcclEstimate& estimate, const Add& add) {
  const int n = topology.ranks;
  if (estimate.algorithm == NcclAlgorithm::pat) {
    const std::vector<int> ring = nccl_ring_order(topology, 0);
    for (std::size_t i = 0; i < ring.size(); ++i)
      add("nccl.pat." + std::to_string(i), ring[i], ring[(i + 1) % ring.size()], total_bytes * (n - 1) / n);
    return;
  }
  const bool all_reduce = kind == CollectiveKind::all_reduce;
  for (int node = 0; node < topology.nodes; ++node) {
    const std::span<const int> local = nccl_node_members(topology, node);
    const double ppn = static_cast<double>(local.size());
    const double each = all_reduce ? total_bytes : total_bytes * (ppn - 1) / ppn;
    for (std::size_t i = 0; i < local.size(); ++i) {
      add("nccl.nvls.n" + std::to_string(node) + "." + std::to_string(i), local[i],
          local[(i + 1) % local.size()], each);
    }
  }
  if (estimate.algorithm != NcclAlgorithm::nvls_tree) return;
  for (int tree = 0; tree < 2; ++tree) {
    for (int node = 0; node < topology.nodes; ++node) {
      const int parent = nccl_tree_parent(topology.nodes, tree, node);
      if (parent < 0) continue;
      const std::string name = "nccl.nvlstree" + std::to_string(tree) + ".t" + std::to_string(node);
      const int child_head = nccl_node_members(topology, node)[static_cast<std::size_t>(tree)];
      const int parent_head = nccl_node_members(topology, parent)[static_cast<std::size_t>(tree)];
      add(name + ".up", child_head, parent_head, total_bytes / 2);
      add(name + ".down", parent_head, child_head, total_bytes / 2);
    }
  }
}

template <typename Add>
void append_flows(const NcclTopology& topology, CollectiveKind kind, double total_bytes,
                  const NcclEstimate& estimate, const Add& add) {
  const int n = topology.ranks, channels = topology.channels;
  if (n <= 1) return;
  if (estimate.algorithm == NcclAlgorithm::nvls || estimate.algorithm == NcclAlgorithm::nvls_tree ||
      estimate.algorithm == NcclAlgorithm::pat) {
    append_switch_flows(topology, kind, total_bytes, estimate, add);
    return;
  }
  if (estimate.algorithm == NcclAlgorithm::ring) {
    // Each channel's ring carries 1/channels of the buffer: steps x (bytes / n / channels) per edge.
    const double edge = ring_steps(kind, n) * total_bytes / n / channels;
    for (int c = 0; c < channels; ++c) {
      const std::vector<int> ring = nccl_ring_order(topology, c);
      for (std::size_t i = 0; i < ring.size(); ++i) {
        add("nccl.ring" + std::to_string(c) + "." + std::to_string(i), ring[i], ring[(i + 1) % ring.size()],
            edge);
      }
    }
    return;
  }
  // Tree all-reduce: each of the two trees reduces then broadcasts half the buffer, split over the channels;
  // every edge carries its share once up (reduce) and once down (broadcast), pipelined.
  const double edge = total_bytes / 2 / channels;
  for (int tree = 0; tree < 2; ++tree) {
    for (int c = 0; c < channels; ++c) {
      const std::string name = "nccl.tree" + std::to_string(tree) + "." + std::to_string(c) + ".";
      const std::vector<std::vector<int>> chains = nccl_chains(topology, c);
      for (std::size_t node = 0; node < chains.size(); ++node) {
        const std::vector<int>& chain = chains[node];
        for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
          const std::string edge_name = name + "n" + std::to_string(node) + "." + std::to_string(i);
          add(edge_name + ".down", chain[i], chain[i + 1], edge);
          add(edge_name + ".up", chain[i + 1], chain[i], edge);
        }
      }
      for (int node = 0; node < topology.nodes; ++node) {
        const int parent = nccl_tree_parent(topology.nodes, tree, node);
        if (parent < 0) continue;
        const std::string edge_name = name + "t" + std::to_string(node);
        const int child_head = chains[static_cast<std::size_t>(node)].front();
        const int parent_head = chains[static_cast<std::size_t>(parent)].front();
        add(edge_name + ".up", child_head, parent_head, edge);
        add(edge_name + ".down", parent_head, child_head, edge);
      }
    }
  }
}

// One flow per ordered pair of ranks and payload of one communicator: the channels' flows between the same
// two ranks (the same route) with the same bytes merge into one that carries their bytes and counts them, in
// first-seen order. Flows of one route and one payload keep equal rates under max-min sharing until they end
// together, so the merged flow, shared like `channels` flows, moves exactly what they move at any contention.
void merge_channel_flows(std::vector<std::shared_ptr<Flow>>& flows) {
  std::map<std::tuple<int, int, double>, std::size_t> seen;
  std::vector<std::shared_ptr<Flow>> merged;
  for (const std::shared_ptr<Flow>& f : flows) {
    const auto [at, fresh] = seen.try_emplace({f->from, f->to, f->bytes}, merged.size());
    if (fresh) {
      merged.push_back(f);
      continue;
    }
    Flow& into = *merged[at->second];
    into.bytes += f->bytes;
    into.wire_bytes += f->wire_bytes;
    into.channels += f->channels;
  }
  flows = std::move(merged);
}

std::shared_ptr<Flow> make_flow(std::string mailbox, int from, int to, double bytes) {
  auto flow = std::make_shared<Flow>();
  flow->mailbox = std::move(mailbox);
  flow->from = from;
  flow->to = to;
  flow->bytes = bytes;
  flow->wire_bytes = bytes;
  return flow;
}

}  // namespace

NcclSchedule nccl_schedule(const ScheduleRequest& r) {
  const NcclFamily* family = r.cost != nullptr ? r.cost->nccl_family(r.nccl_group) : nullptr;
  if (family == nullptr) throw SimulationError("the nccl schedule needs the nccl cost model");
  NcclSchedule out;
  // global: NCCL's own pick for the one communicator (as `collective` prints it); a group kind: the
  // planner's charge for its communicators, all at once.
  out.estimate = r.nccl_group == GroupKind::global
                     ? nccl_pick(family->copies.front(), r.kind, r.total_bytes)
                     : r.cost->nccl_collective(r.kind, r.nccl_group, r.total_bytes);
  out.ranks.assign(static_cast<std::size_t>(r.ranks), RankSchedule{Stage{}});
  for (std::size_t copy = 0; copy < family->copies.size(); ++copy) {
    const std::string prefix = family->copies.size() > 1 ? "g" + std::to_string(copy) + "." : "";
    append_flows(family->copies[copy], r.kind, r.total_bytes, out.estimate,
                 [&](const std::string& name, int from, int to, double bytes) {
                   if (from == to) return;
                   auto flow = make_flow(r.tag + prefix + name, from, to, bytes);
                   out.flows.push_back(flow);
                   out.ranks[static_cast<std::size_t>(from)].front().flows.push_back(flow);
                   out.ranks[static_cast<std::size_t>(to)].front().flows.push_back(flow);
                 });
  }
  return out;
}

NcclFamilyFlows nccl_family_flows(const NcclFamily& family, CollectiveKind kind, double total_bytes,
                                  const NcclEstimate& estimate, bool merge_channels) {
  NcclFamilyFlows out;
  out.estimate = estimate;
  out.copies.resize(family.copies.size());
  for (std::size_t copy = 0; copy < family.copies.size(); ++copy) {
    append_flows(family.copies[copy], kind, total_bytes, estimate,
                 [&](const std::string& /*name*/, int from, int to, double bytes) {
                   if (from == to) return;
                   auto flow = make_flow({}, from, to, bytes);
                   out.copies[copy].push_back(flow);
                 });
    if (merge_channels) merge_channel_flows(out.copies[copy]);
    out.flows.insert(out.flows.end(), out.copies[copy].begin(), out.copies[copy].end());
  }
  return out;
}

double fit_nccl_flows(NcclSchedule& schedule, const Platform& platform) {
  return fit_nccl_flows(schedule.flows, schedule.estimate, platform);
}

double fit_nccl_flows(const std::vector<std::shared_ptr<Flow>>& flows, const NcclEstimate& estimate,
                      const Platform& platform) {
  if (flows.empty() || !(estimate.bandwidth_seconds > 0)) return 1;
  std::map<std::pair<std::string, bool>, int> crossing;  // channels' flows per link direction
  for (const auto& f : flows) {
    for (const Platform::RouteHop& hop : platform.route(f->from, f->to))
      crossing[{hop.link, hop.up}] += f->channels;
  }
  const sg4::Engine* engine = sg4::Engine::get_instance();
  double slowest = 0;  // seconds of the slowest flow at full (unscaled) payload
  std::vector<double> path_latency, rate;
  for (const auto& f : flows) {
    double r = 0, latency = 0;
    bool first = true;
    for (const Platform::RouteHop& hop : platform.route(f->from, f->to)) {
      const double share = hop.bytes_per_second * f->channels / crossing[{hop.link, hop.up}];
      r = first ? share : std::min(r, share);
      first = false;
      latency += engine->split_duplex_link_by_name(hop.link)->get_link_up()->get_latency();
    }
    if (first) {
      throw SimulationError("no route between ranks " + std::to_string(f->from) + " and " +
                            std::to_string(f->to));
    }
    slowest = std::max(slowest, f->bytes / r);
    path_latency.push_back(latency);
    rate.push_back(r);
  }
  const double efficiency = slowest / estimate.bandwidth_seconds;
  // Flows carry whole bytes: the slowest flow's rounding is taken back from every sender's delay.
  double rounded_slowest = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    Flow& f = *flows[i];
    f.wire_bytes = std::max(1.0, std::round(f.bytes / efficiency));
    rounded_slowest = std::max(rounded_slowest, f.wire_bytes / rate[i]);
  }
  const double rounding = estimate.bandwidth_seconds - rounded_slowest;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    flows[i]->delay_seconds = std::max(0.0, estimate.latency_seconds - path_latency[i] + rounding);
    flows[i]->route_latency_seconds = path_latency[i];
  }
  return efficiency;
}

}  // namespace shardscope::sim
