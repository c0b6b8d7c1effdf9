// NCCL's own cost model for one collective (channels, rail-aligned rings, double binary tree, LL / LL128 /
// Simple protocols, NCCL's (algorithm, protocol) pick), re-derived from the published tuning constants.
// A calibration's per-kind `collective_efficiency` does not apply here: NCCL on GPUs runs all-gather,
// reduce-scatter and all-reduce at about one bus bandwidth (the factors are for ring pricing, e.g. CPU MPI).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "planner/core/cluster.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope {

enum class NcclAlgorithm { tree, ring, nvls, nvls_tree, pat };
enum class NcclProtocol { ll, ll128, simple };

template <>
struct EnumNames<NcclAlgorithm> {
  static constexpr NameEntry<NcclAlgorithm> table[] = {
      {NcclAlgorithm::tree, "tree", "chains inside nodes joined by a double binary tree of nodes"},
      {NcclAlgorithm::ring, "ring", "rings, one per channel, rail-aligned across nodes"},
      {NcclAlgorithm::nvls, "NVLS", "NVLink SHARP: the NVSwitch reduces and multicasts (Hopper, one node)"},
      {NcclAlgorithm::nvls_tree, "NVLSTree", "NVLS inside each node, a tree of nodes across (all-reduce)"},
      {NcclAlgorithm::pat, "PAT", "parallel aggregated trees: all-gather / reduce-scatter, one GPU per node"},
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

// The planner's communicators of a group kind on `gpus` ranks in groups of `group_size`: intra, the
// gpus / group_size groups of consecutive ranks; inter, group_size communicators of stride group_size;
// global, one over every rank.
NcclGroup nccl_group_of(GroupKind group, int gpus, int group_size);

// What NCCL's topology search would find for one communicator (search.cc ladders applied to the cluster's
// links; init.cc keeps the least channels and bandwidths any node found, so the sparsest node decides).
struct NcclTopology {
  int ranks = 1;
  int nodes = 1;  // nodes the group spans
  // NCCL's nRanks / nNodes rounded down, as tuning.cc's tree latency reads it: the members per node on
  // average, which is what NCCL's formulas use even when the group sits unevenly (8 + 4 members: 6). The
  // chains and rings follow nccl_node_members, not this.
  int ranks_per_node = 1;
  bool intra_hops = false;  // some node holds two or more members: the rings cross its NVLink / PCIe
  int rails = 1;            // NICs per node the rings cross nodes on: the fewest any node's members reach
  int channels = 1;         // rings (one per rail across nodes; the ladder's count inside a node)
  double intra_bus_bytes_per_second = 0;  // nChannels x bwIntra: the group's NVLink / PCIe ring
  double inter_bus_bytes_per_second = 0;  // nChannels x bwInter: its NICs (0 inside one node)
  bool nvlink = false;                    // intra-node hops are NVLink (else PCIe)
  // NCCL's NVLS graph, where the nodes' NVSwitches reduce (Hopper and later, two or more members a node):
  // one channel per member (per NIC head across nodes), each at its ladder speed (search.cc, tuning.cc).
  bool nvls = false;
  int nvls_channels = 0;
  double nvls_bytes_per_second = 0;  // per channel, bwIntra = bwInter of the NVLS graph
  bool ll128 = false;                // LL128 enabled (NVLink paths only, as NCCL defaults)
  NcclGeneration generation = NcclGeneration::volta;
  int gpus_per_node = 1;     // the cluster's, for a member's local index (rank % this)
  std::vector<int> members;  // ranks of the group, in rank order, hence grouped by the node they sit on
  // Node k's members are members[node_starts[k]] up to members[node_starts[k + 1]] (nodes + 1 entries).
  std::vector<int> node_starts;
};

// The members on node index `node` of the group (nodes counted in rank order), in rank order.
std::span<const int> nccl_node_members(const NcclTopology& topology, int node);

// Communicator 0 of the group (ranks i * stride), sharing the NICs with the group's other copies.
NcclTopology nccl_topology(const Cluster& cluster, const NcclGroup& group);

// Every communicator of a family (copy c: ranks c * concurrent_offset + i * stride). Copies may sit
// differently on the nodes (12 ranks on 8-GPU nodes: 8 + 4, then 4 + 8), so each has its own topology;
// `shapes` lists one copy per distinct set of inputs to nccl_estimate, in copy order.
struct NcclFamily {
  std::vector<NcclTopology> copies;
  std::vector<std::size_t> shapes;
};
NcclFamily nccl_family(const Cluster& cluster, const NcclGroup& group);

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

// NCCL's pick for a whole family: the slowest of its shapes' picks (the family's collective ends with its
// slowest communicator).
NcclEstimate nccl_family_pick(const NcclFamily& family, CollectiveKind kind, double total_bytes);

// Channel `channel`'s chain inside every node of the group, in node order: each node's members, entered at
// the GPU the previous node's chain leaves from on the same rail where the nodes allow it. Rails: a hop
// from node k to k + 1 leaves and enters on GPUs of the same local index (hence the same NIC), picked
// among the local indices both nodes hold and spread over the channels; where the two nodes hold no local
// index in common (uneven groups whose members sit at different GPUs of their nodes) the hop crosses
// rails, entering at the position the even layout would use. With equal nodes this is NCCL's rail-aligned
// ring: the entry moves back one member per node.
std::vector<std::vector<int>> nccl_chains(const NcclTopology& topology, int channel);
// The ring order of channel `channel` over the group's members: its chains, node after node.
std::vector<int> nccl_ring_order(const NcclTopology& topology, int channel);
// Channel `channel`'s chain in node index `node` (nccl_chains' entry): its head is where the tree enters.
std::vector<int> nccl_chain_order(const NcclTopology& topology, int node, int channel);
// Parent of node index `node` in tree `tree` (0 or 1) of NCCL's double binary tree over `nodes`; -1 at the
// root.
int nccl_tree_parent(int nodes, int tree, int node);

}  // namespace shardscope
