// NCCL's collectives as point-to-point edges: one ring per channel over rail-aligned routes, or the double
// binary tree of nodes with a chain inside each node, or the switch algorithms' traffic; channels merged.
#include "planner/cost/nccl_flows.hpp"

#include <map>
#include <string>
#include <tuple>

namespace shardscope {
namespace {

// Appends one communicator's flows (its members are the topology's own ranks) under NCCL's pick `estimate`:
// `add(from, to, bytes)` receives each flow.
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
      add(ring[i], ring[(i + 1) % ring.size()], total_bytes * (n - 1) / n);
    return;
  }
  const bool all_reduce = kind == CollectiveKind::all_reduce;
  for (int node = 0; node < topology.nodes; ++node) {
    const std::span<const int> local = nccl_node_members(topology, node);
    const double ppn = static_cast<double>(local.size());
    const double each = all_reduce ? total_bytes : total_bytes * (ppn - 1) / ppn;
    for (std::size_t i = 0; i < local.size(); ++i) {
      add(local[i], local[(i + 1) % local.size()], each);
    }
  }
  if (estimate.algorithm != NcclAlgorithm::nvls_tree) return;
  for (int tree = 0; tree < 2; ++tree) {
    for (int node = 0; node < topology.nodes; ++node) {
      const int parent = nccl_tree_parent(topology.nodes, tree, node);
      if (parent < 0) continue;
      const int child_head = nccl_node_members(topology, node)[static_cast<std::size_t>(tree)];
      const int parent_head = nccl_node_members(topology, parent)[static_cast<std::size_t>(tree)];
      add(child_head, parent_head, total_bytes / 2);
      add(parent_head, child_head, total_bytes / 2);
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
        add(ring[i], ring[(i + 1) % ring.size()], edge);
      }
    }
    return;
  }
  // Tree all-reduce: each of the two trees reduces then broadcasts half the buffer, split over the channels;
  // every edge carries its share once up (reduce) and once down (broadcast), pipelined.
  const double edge = total_bytes / 2 / channels;
  for (int tree = 0; tree < 2; ++tree) {
    for (int c = 0; c < channels; ++c) {
      const std::vector<std::vector<int>> chains = nccl_chains(topology, c);
      for (std::size_t node = 0; node < chains.size(); ++node) {
        const std::vector<int>& chain = chains[node];
        for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
          add(chain[i], chain[i + 1], edge);  // down, then up
          add(chain[i + 1], chain[i], edge);
        }
      }
      for (int node = 0; node < topology.nodes; ++node) {
        const int parent = nccl_tree_parent(topology.nodes, tree, node);
        if (parent < 0) continue;
        const int child_head = chains[static_cast<std::size_t>(node)].front();
        const int parent_head = chains[static_cast<std::size_t>(parent)].front();
        add(child_head, parent_head, edge);  // up, then down
        add(parent_head, child_head, edge);
      }
    }
  }
}

}  // namespace

std::vector<NcclEdge> nccl_edges(const NcclTopology& topology, CollectiveKind kind, double total_bytes,
                                 const NcclEstimate& estimate, bool merge_channels) {
  std::vector<NcclEdge> edges;
  std::map<std::tuple<int, int, double>, std::size_t> seen;  // (from, to, bytes) -> its merged edge
  append_flows(topology, kind, total_bytes, estimate, [&](int from, int to, double bytes) {
    if (from == to) return;
    if (merge_channels) {
      const auto [at, fresh] = seen.try_emplace({from, to, bytes}, edges.size());
      if (!fresh) {
        edges[at->second].bytes += bytes;
        ++edges[at->second].channels;
        return;
      }
    }
    edges.push_back({from, to, bytes, 1});
  });
  return edges;
}

}  // namespace shardscope
