// NCCL's cost model re-derived (not copied) from NVIDIA/nccl v2.30.7 src/graph/{tuning,search}.cc and topo.h
// as summarised in docs/notes/nccl_calibration.md section 2; every figure below is cited there.
#include "planner/cost/nccl_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

namespace shardscope {
namespace {

constexpr int kProtocols = 3;  // LL, LL128, Simple (NcclProtocol order)
// tuning.cc ncclTunerConstantsDefaults, microseconds, per protocol LL / LL128 / Simple.
constexpr double kBaseLatencyUs[2][kProtocols] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};  // [tree, ring]
constexpr double kNvlinkLatencyUs[2][kProtocols] = {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}};
constexpr double kPciLatencyUs[2][kProtocols] = {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}};
constexpr double kNetLatencyUs[2][kProtocols] = {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}};
// Per-step intra-node latency floor once a collective crosses nodes (Intel CPUs 1 us; x3 for Simple).
constexpr double kNetOverheadUs = 1.0;
// Multi-node ring Simple all-reduce latency factor (SM >= 80: 1.4, below: 1.9).
constexpr double kRingSimpleMultiNodeFactor[2] = {1.9, 1.4};
// Caps, GB/s, per generation [Volta, Ampere, Hopper, Blackwell] x nodes [1, 2, >= 4 (3 counts as >= 4)].
constexpr double kLlMaxBwGBps[4][3] = {{39, 39, 20.4}, {87.7, 22.5, 19}, {141, 45, 35}, {282, 90, 70}};
constexpr double kPerChannelRingLl128GBps[4] = {20, 20, 36.7, 2 * 36.7};
constexpr double kPerChannelTreeLl128GBps[4][3] = {
    {20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29}, {2 * 36.7, 2 * 36.7, 2 * 29}};
constexpr double kPerChannelTreeGBps[4][3] = {
    {26.5, 18.5, 10}, {24, 23.6, 17.8}, {38.7, 41.4, 36}, {70, 42.8, 24}};
constexpr double kLl128Efficiency = 0.92;  // ring and tree LL128 / tree Simple: 0.92 x busBw
// search.cc speed ladders, GB/s per channel: intra-node (pre-SM90) and inter-node.
constexpr double kIntraLadderGBps[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr double kInterLadderGBps[] = {48, 30, 28, 24, 20, 18,  15,  12,   10,  9,
                                       7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr int kMaxSearchChannels = 16;  // channels the search may build before NCCL duplicates them
constexpr int kMaxChannels = 32;
// topo.h: NCCL credits an NVLink 3 link with 20 GB/s (SM80; 20.6 SM90) of its 25 GB/s per direction.
constexpr double kNvlinkCreditFraction = 20.0 / 25.0;

// The search tries the ladder from its top rung and keeps the first speed at which a channel fits, then
// as many channels at that speed as the links hold: nChannels x speed.
double ladder_total(const double* ladder, std::size_t rungs, double available_gbps, int* channels) {
  for (std::size_t i = 0; i < rungs; ++i) {
    const int c =
        std::min(kMaxSearchChannels, static_cast<int>(std::floor(available_gbps / ladder[i] + 1e-9)));
    if (c >= 1) {
      *channels = c;
      return c * ladder[i];
    }
  }
  *channels = 1;
  return available_gbps;  // below the last rung: one channel at what the link gives
}

NcclGeneration generation_of(const std::string& gpu_name) {
  std::string name;
  for (const char ch : gpu_name) name += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const auto has = [&name](const char* s) { return name.find(s) != std::string::npos; };
  if (has("B100") || has("B200") || has("GB200") || has("B300")) return NcclGeneration::blackwell;
  if (has("H100") || has("H200") || has("H800") || has("H20") || has("GH200")) return NcclGeneration::hopper;
  if (has("A100") || has("A800") || has("A30") || has("A40") || has("A10")) return NcclGeneration::ampere;
  return NcclGeneration::volta;
}

int nodes_index(int nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

int nic_of(const Cluster& c, int rank) {
  return (rank % c.gpus_per_node) * c.network.nics_per_node / c.gpus_per_node;
}

// Members of communicator `copy` that sit on node `node`, in rank order.
std::vector<int> members_on(const Cluster& c, const NcclGroup& g, int copy, int node) {
  std::vector<int> out;
  for (int i = 0; i < g.ranks; ++i) {
    const int r = copy * g.concurrent_offset + i * g.stride;
    if (c.node_of(r) == node) out.push_back(r);
  }
  return out;
}

}  // namespace

NcclTopology nccl_topology(const Cluster& cluster, const NcclGroup& group) {
  NcclTopology t;
  t.ranks = group.ranks;
  for (int i = 0; i < group.ranks; ++i) t.members.push_back(i * group.stride);
  std::set<int> nodes;
  for (const int r : t.members) nodes.insert(cluster.node_of(r));
  t.nodes = static_cast<int>(nodes.size());
  t.ranks_per_node = group.ranks / t.nodes;
  t.nvlink = cluster.intra_node == IntraNodeKind::nvswitch;
  t.ll128 = t.nvlink;  // NCCL enables LL128 on NVLink paths only: off on plain PCIe boxes
  t.generation = generation_of(cluster.gpu.name);
  int intra_channels = 1;
  if (t.ranks_per_node > 1) {
    double gbps = 0;
    if (t.nvlink) {
      gbps = kNvlinkCreditFraction * cluster.nvswitch.gpu_bytes_per_second / 1e9;
    } else {  // the ring through the first node's members: its slowest PCIe hop
      const std::vector<int> local = members_on(cluster, group, 0, cluster.node_of(t.members.front()));
      gbps = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < local.size(); ++i) {
        const int a = local[i], b = local[(i + 1) % local.size()];
        gbps = std::min(gbps,
                        link_properties(cluster, link_class_between(cluster, a, b)).bytes_per_second / 1e9);
      }
    }
    t.intra_bus_bytes_per_second =
        1e9 * ladder_total(kIntraLadderGBps, std::size(kIntraLadderGBps), gbps, &intra_channels);
  }
  int channels = intra_channels;
  if (t.nodes > 1) {
    // Rails: the distinct NICs the group's members reach on one node; concurrent communicators whose
    // members reach the same NIC share it.
    const int node0 = cluster.node_of(t.members.front());
    std::set<int> rails;
    for (const int r : members_on(cluster, group, 0, node0)) rails.insert(nic_of(cluster, r));
    int share = 1;
    for (const int nic : rails) {
      int users = 0;
      for (int copy = 0; copy < std::max(1, group.concurrent); ++copy) {
        bool uses = false;
        for (const int r : members_on(cluster, group, copy, node0)) uses = uses || nic_of(cluster, r) == nic;
        if (uses) ++users;
      }
      share = std::max(share, users);
    }
    int one = 1;
    const double per_nic = ladder_total(kInterLadderGBps, std::size(kInterLadderGBps),
                                        cluster.network.nic_bytes_per_second / 1e9, &one);
    channels = static_cast<int>(rails.size());
    t.inter_bus_bytes_per_second = 1e9 * channels * per_nic / share;
  }
  // NCCL duplicates the searched channels (more SMs in flight) up to its channel limit.
  t.channels = std::min(kMaxChannels, 2 * channels);
  return t;
}

NcclEstimate nccl_estimate(const NcclTopology& t, CollectiveKind kind, NcclAlgorithm algorithm,
                           NcclProtocol protocol, double total_bytes) {
  NcclEstimate e;
  e.algorithm = algorithm;
  e.protocol = protocol;
  const int n = t.ranks;
  if (n <= 1 || total_bytes <= 0) {
    e.available = algorithm == NcclAlgorithm::ring;
    return e;
  }
  const bool all_reduce = kind == CollectiveKind::all_reduce;
  const bool tree = algorithm == NcclAlgorithm::tree;
  // Double binary tree: all-reduce across nodes only. LL128 only where NCCL enables it.
  if ((tree && (!all_reduce || t.nodes <= 1)) || (protocol == NcclProtocol::ll128 && !t.ll128)) return e;
  e.available = true;
  const int a = tree ? 0 : 1;
  const int p = static_cast<int>(protocol);
  const int gen = static_cast<int>(t.generation);
  const int ni = nodes_index(t.nodes);

  // Bus bandwidth: nChannels x bw of the slowest hop class the rings cross (GB/s).
  double bus = t.nodes > 1 ? t.inter_bus_bytes_per_second : t.intra_bus_bytes_per_second;
  if (t.nodes > 1 && t.ranks_per_node > 1) bus = std::min(bus, t.intra_bus_bytes_per_second);
  bus /= 1e9;
  const double ll_max = t.nodes == 1 ? kLlMaxBwGBps[gen][0] : kLlMaxBwGBps[0][ni];
  if (!tree) {
    if (protocol == NcclProtocol::ll) bus = std::min(ll_max, 0.5 * bus);
    if (protocol == NcclProtocol::ll128)
      bus = std::min(kLl128Efficiency * bus, t.channels * kPerChannelRingLl128GBps[gen]);
  } else {
    if (protocol == NcclProtocol::ll) bus = std::min(bus / 3.8, ll_max);
    if (protocol == NcclProtocol::ll128) {
      bus = std::min(bus * (t.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                     t.channels * kPerChannelTreeLl128GBps[gen][ni]);
    }
    if (protocol == NcclProtocol::simple)
      bus = std::min(kLl128Efficiency * bus, t.channels * kPerChannelTreeGBps[gen][ni]);
  }
  const int steps = ring_steps(kind, n);
  // Bus to algorithm bandwidth: ring x nRanks / nsteps, tree x 0.5.
  const double algbw = tree ? 0.5 * bus : bus * n / steps;

  // Latency, us.
  double intra = (t.nvlink ? kNvlinkLatencyUs : kPciLatencyUs)[a][p];
  const double inter = kNetLatencyUs[(t.ranks_per_node == 1) ? 0 : a][p];
  if (t.nodes > 1) intra = std::max(intra, kNetOverheadUs * (protocol == NcclProtocol::simple ? 3 : 1));
  double lat = kBaseLatencyUs[a][p];
  if (tree) {
    const int log2_nodes = static_cast<int>(std::floor(std::log2(t.nodes)));
    lat += 2 * ((t.ranks_per_node - 1) * intra + log2_nodes * inter);
  } else {
    const int inter_steps = (all_reduce ? 2 : 1) * (t.nodes - 1);
    lat += (steps - inter_steps) * intra + inter_steps * inter;
    if (all_reduce && protocol == NcclProtocol::simple && t.nodes > 1) {
      lat *= kRingSimpleMultiNodeFactor[gen >= static_cast<int>(NcclGeneration::ampere) ? 1 : 0];
    }
  }
  e.latency_seconds = lat * 1e-6;
  e.bus_bytes_per_second = bus * 1e9;
  e.bandwidth_seconds = total_bytes / (algbw * 1e9);
  return e;
}

NcclEstimate nccl_pick(const NcclTopology& t, CollectiveKind kind, double total_bytes) {
  NcclEstimate best;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (const NcclAlgorithm a : {NcclAlgorithm::tree, NcclAlgorithm::ring}) {
    for (const NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
      const NcclEstimate e = nccl_estimate(t, kind, a, p, total_bytes);
      if (e.available && e.seconds() < best_seconds) {
        best = e;
        best_seconds = e.seconds();
      }
    }
  }
  return best;
}

namespace {
// The members on the group's node index `node` (node indices count the group's nodes in rank order).
std::vector<int> node_members(const NcclTopology& t, int node) {
  const auto first = t.members.begin() + static_cast<std::ptrdiff_t>(node) * t.ranks_per_node;
  return std::vector<int>(first, first + t.ranks_per_node);
}

// Channel `channel`'s entry position in node `node`: rails spaced evenly over the node's members, the
// entry moving back one member per node so the leaving and the entering GPU share their local position.
int entry_position(const NcclTopology& t, int node, int channel) {
  const int ppn = t.ranks_per_node;
  const int rails = std::max(1, t.channels / 2);
  const int spacing = std::max(1, ppn / rails);
  const int position = (channel % rails) * spacing - node;
  return ((position % ppn) + ppn) % ppn;
}
}  // namespace

std::vector<int> nccl_chain_order(const NcclTopology& t, int node, int channel) {
  const std::vector<int> local = node_members(t, node);
  const int entry = t.nodes > 1 ? entry_position(t, node, channel) : 0;
  std::vector<int> out;
  for (int i = 0; i < t.ranks_per_node; ++i)
    out.push_back(local[static_cast<std::size_t>((entry + i) % t.ranks_per_node)]);
  return out;
}

std::vector<int> nccl_ring_order(const NcclTopology& t, int channel) {
  std::vector<int> out;
  for (int node = 0; node < t.nodes; ++node) {
    const std::vector<int> chain = nccl_chain_order(t, node, channel);
    out.insert(out.end(), chain.begin(), chain.end());
  }
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
