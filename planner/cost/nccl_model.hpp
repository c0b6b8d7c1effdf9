// NCCL's own cost model for one collective (channels, rail-aligned rings, double binary tree, LL / LL128 /
// Simple protocols, NCCL's (algorithm, protocol) pick), re-derived from the published tuning constants.
#pragma once

#include <string>
#include <vector>

#include "planner/core/cluster.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope {

enum class NcclAlgorithm { tree, ring };
enum class NcclProtocol { ll, ll128, simple };

template <>
struct EnumNames<NcclAlgorithm> {
  static constexpr NameEntry<NcclAlgorithm> table[] = {
      {NcclAlgorithm::tree, "tree", "chains inside nodes joined by a double binary tree of nodes"},
      {NcclAlgorithm::ring, "ring", "rings, one per channel, rail-aligned across nodes"},
  };
};

template <>
struct EnumNames<NcclProtocol> {
  static constexpr NameEntry<NcclProtocol> table[] = {
      {NcclProtocol::ll, "LL", "8-byte flag+data stores: lowest latency, half the bandwidth"},
      {NcclProtocol::ll128, "LL128", "128-byte lines with a flag: NVLink only"},
      {NcclProtocol::simple, "Simple", "bulk copies with fences: full bandwidth, highest latency"},
  };
};

// NCCL's tuning rows are per GPU generation; a cluster file names its GPU, and the row is read off the name
// (A100/A800/A30 Ampere, H100/H200/H800/H20 Hopper, B100/B200/GB200 Blackwell, anything else Volta).
enum class NcclGeneration { volta, ampere, hopper, blackwell };

// The members of one communicator: ranks first + i * stride (i < ranks), as the planner's group kinds and
// the `collective` command use them, plus how many such communicators run at once on disjoint ranks
// (`concurrent_offset` apart), which share the nodes' NICs.
struct NcclGroup {
  int ranks = 1;
  int stride = 1;
  int concurrent = 1;         // communicators running the same collective at once
  int concurrent_offset = 0;  // rank offset from one communicator's first member to the next's
};

// What NCCL's topology search would find for a group (search.cc ladders applied to the cluster's links).
struct NcclTopology {
  int ranks = 1;
  int nodes = 1;           // nodes the group spans
  int ranks_per_node = 1;  // members per node
  int channels = 1;        // rings (one per rail across nodes; the ladder's count inside a node)
  double intra_bus_bytes_per_second = 0;  // nChannels x bwIntra: the group's NVLink / PCIe ring
  double inter_bus_bytes_per_second = 0;  // nChannels x bwInter: its NICs (0 inside one node)
  bool nvlink = false;                    // intra-node hops are NVLink (else PCIe)
  bool ll128 = false;                     // LL128 enabled (NVLink paths only, as NCCL defaults)
  NcclGeneration generation = NcclGeneration::volta;
  std::vector<int> members;  // ranks of the group, in order
};

NcclTopology nccl_topology(const Cluster& cluster, const NcclGroup& group);

struct NcclEstimate {
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  double latency_seconds = 0;       // NCCL's lat (base + per-step hardware latencies)
  double bandwidth_seconds = 0;     // bytes / algorithm bandwidth
  double bus_bytes_per_second = 0;  // the protocol's bus bandwidth
  double seconds() const { return latency_seconds + bandwidth_seconds; }
  bool available = false;  // false: NCCL would not run this pair (e.g. tree for all-gather)
};

// One (algorithm, protocol) pair by NCCL's formula: lat + bytes / (1000 x algBw) (tuning.cc).
NcclEstimate nccl_estimate(const NcclTopology& topology, CollectiveKind kind, NcclAlgorithm algorithm,
                           NcclProtocol protocol, double total_bytes);
// NCCL's pick: the available pair of lowest predicted time (ties: the earlier of tree/ring, LL/LL128/Simple).
NcclEstimate nccl_pick(const NcclTopology& topology, CollectiveKind kind, double total_bytes);

// The ring order of channel `channel` over the group's members: rail-aligned across nodes (the GPU that
// leaves a node and the GPU that enters the next share a local index, hence a rail), channels spread over
// the nodes' NICs.
std::vector<int> nccl_ring_order(const NcclTopology& topology, int channel);
// Channel `channel`'s head GPU in each node (the one on its rail), in node order: where its tree enters.
std::vector<int> nccl_chain_order(const NcclTopology& topology, int node, int channel);
// Parent of node index `node` in tree `tree` (0 or 1) of NCCL's double binary tree over `nodes`; -1 at the
// root.
int nccl_tree_parent(int nodes, int tree, int node);

}  // namespace shardscope
