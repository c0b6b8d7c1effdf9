// NCCL's channel layouts re-derived from NVIDIA/nccl v2.30.7 src/graph/search.cc: per channel the chain of
// members in each node, the rings through them and the trees' parents (docs/notes/nccl_calibration.md).
#include <algorithm>
#include <span>
#include <vector>

#include "planner/cost/nccl_model.hpp"

namespace shardscope {
namespace {
int modulo(int value, int size) { return ((value % size) + size) % size; }

// Position `shift` members back from rail `rail`'s slot among `size` positions, the rails spaced evenly.
int rail_position(int rail, int rails, int size, int shift) {
  return modulo(rail * std::max(1, size / rails) - shift, size);
}

// Index in `local` of the member at local GPU index `gpu`, or -1.
int position_of_gpu(const NcclTopology& t, std::span<const int> local, int gpu) {
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (local[i] % t.gpus_per_node == gpu) return static_cast<int>(i);
  }
  return -1;
}
}  // namespace

std::span<const int> nccl_node_members(const NcclTopology& t, int node) {
  const auto first = static_cast<std::size_t>(t.node_starts[static_cast<std::size_t>(node)]);
  const auto end = static_cast<std::size_t>(t.node_starts[static_cast<std::size_t>(node) + 1]);
  return std::span<const int>(t.members).subspan(first, end - first);
}

std::vector<std::vector<int>> nccl_chains(const NcclTopology& t, int channel) {
  const int nodes = t.nodes;
  std::vector<std::vector<int>> out(static_cast<std::size_t>(nodes));
  if (nodes == 1) {
    out.front() = t.members;
    return out;
  }
  const int rails = std::max(1, t.rails), rail = channel % rails;
  int entry = rail_position(rail, rails, static_cast<int>(nccl_node_members(t, 0).size()), 0);
  for (int node = 0; node < nodes; ++node) {
    const std::span<const int> local = nccl_node_members(t, node);
    const int size = static_cast<int>(local.size());
    int exit = modulo(entry - 1, size);  // the even layout: leave from the member before the entry
    const bool last = node + 1 == nodes;
    const std::span<const int> next = last ? std::span<const int>() : nccl_node_members(t, node + 1);
    if (!last && size > 1) {
      std::vector<int> shared;  // positions of members whose local GPU index the next node also holds
      for (int i = 0; i < size; ++i) {
        if (position_of_gpu(t, next, local[static_cast<std::size_t>(i)] % t.gpus_per_node) >= 0)
          shared.push_back(i);
      }
      if (!shared.empty()) {
        const int count = static_cast<int>(shared.size());
        int k = rail_position(rail, rails, count, node + 1);
        if (shared[static_cast<std::size_t>(k)] == entry) k = modulo(k + 1, count);
        if (shared[static_cast<std::size_t>(k)] != entry) exit = shared[static_cast<std::size_t>(k)];
      }
    }
    std::vector<int>& chain = out[static_cast<std::size_t>(node)];
    chain.push_back(local[static_cast<std::size_t>(entry)]);
    for (int i = 1; i < size; ++i) {
      const int position = (entry + i) % size;
      if (position != exit) chain.push_back(local[static_cast<std::size_t>(position)]);
    }
    if (exit != entry) chain.push_back(local[static_cast<std::size_t>(exit)]);
    if (!last) {
      const int same_rail = position_of_gpu(t, next, chain.back() % t.gpus_per_node);
      entry =
          same_rail >= 0 ? same_rail : rail_position(rail, rails, static_cast<int>(next.size()), node + 1);
    }
  }
  return out;
}

std::vector<int> nccl_chain_order(const NcclTopology& t, int node, int channel) {
  return nccl_chains(t, channel)[static_cast<std::size_t>(node)];
}

std::vector<int> nccl_ring_order(const NcclTopology& t, int channel) {
  std::vector<int> out;
  for (const std::vector<int>& chain : nccl_chains(t, channel))
    out.insert(out.end(), chain.begin(), chain.end());
  return out;
}

int nccl_tree_parent(int nodes, int tree, int node) {
  // Tree 0 is a binary heap over node indices; tree 1 the same heap over the mirrored indices, so that
  // tree 0's leaves are tree 1's inner nodes (NCCL's double binary tree, trees.cc).
  const int i = tree == 0 ? node : nodes - 1 - node;
  if (i == 0) return -1;
  const int parent = (i - 1) / 2;
  return tree == 0 ? parent : nodes - 1 - parent;
}

}  // namespace shardscope
