// NCCL's cost model re-derived (not copied) from NVIDIA/nccl v2.30.7 src/graph/{tuning,search}.cc and topo.h
// as summarised in docs/notes/nccl_calibration.md section 2; every figure below is cited there.
#include "planner/cost/nccl_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "planner/cost/nccl_calibration.hpp"

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
// NVLS (tuning.cc): the switch's efficiency per generation [Volta, Ampere, Hopper, Blackwell] (0: none), the
// per-channel cap of NVLSTree by nodes [1, 2, >= 4], and NCCL's NVLS hardware latencies (us, Simple only).
constexpr double kNvlsEfficiency[4] = {0, 0, 0.85, 0.74};
constexpr double kPerChannelNvlsTreeGBps[4][3] = {
    {26.5, 18.5, 10}, {24, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96, 80}};
constexpr double kNvlsNvlinkLatencyUs = 25, kNvlsTreeNvlinkLatencyUs = 25, kNvlsTreeNetLatencyUs = 20.9;
// The NVLS graph of one node: one channel per member at the top rung of the generation's intra-node ladder
// (search.cc: SM90 {60, 50, ...}, SM100 {90, 80, ...}); 8 x 60 GB/s is the 480 GB/s all-reduce bus bandwidth
// NCCL's maintainers give for NVLS on 8 H100s (nccl-tests#212) and nccl-tests#290 measured (476.5).
constexpr double kNvlsSpeedGBps[4] = {0, 0, 60, 90};
constexpr int kMaxNvlsArity = 32;  // device.h NCCL_MAX_NVLS_ARITY
// PAT (tuning.cc): base latency 8 us; log2(nodes) x the network's tree latency / 3.5 + 2.8 us per rank;
// 0.75 of the tree graph's bus bandwidth.
constexpr double kPatBaseLatencyUs = 8, kPatPerRankUs = 2.8, kPatLogDivisor = 3.5, kPatEfficiency = 0.75;

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

int rank_of(const NcclGroup& g, int copy, int i) { return copy * g.concurrent_offset + i * g.stride; }

// How many of the family's communicators reach each NIC (node x NICs per node + NIC): those share it.
struct NicUsers {
  int nics_per_node = 1;
  std::vector<int> users;
  int of(const Cluster& c, int rank) const {
    return users[static_cast<std::size_t>(c.node_of(rank)) * static_cast<std::size_t>(nics_per_node) +
                 static_cast<std::size_t>(nic_of(c, rank))];
  }
};

NicUsers nic_users(const Cluster& c, const NcclGroup& g) {
  NicUsers u;
  u.nics_per_node = std::max(1, c.network.nics_per_node);
  const std::size_t slots = static_cast<std::size_t>(c.nodes) * static_cast<std::size_t>(u.nics_per_node);
  u.users.assign(slots, 0);
  std::vector<int> last_copy(slots, -1);  // the last communicator counted at each NIC
  for (int copy = 0; copy < std::max(1, g.concurrent); ++copy) {
    for (int i = 0; i < g.ranks; ++i) {
      const int r = rank_of(g, copy, i);
      const std::size_t slot =
          static_cast<std::size_t>(c.node_of(r)) * static_cast<std::size_t>(u.nics_per_node) +
          static_cast<std::size_t>(nic_of(c, r));
      if (last_copy[slot] == copy) continue;
      last_copy[slot] = copy;
      ++u.users[slot];
    }
  }
  return u;
}

// The slowest PCIe hop (GB/s) of the ring through `local` (one node's members, in order).
double slowest_pcie_hop_gbps(const Cluster& c, std::span<const int> local) {
  double gbps = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < local.size(); ++i) {
    const int a = local[i], b = local[(i + 1) % local.size()];
    gbps = std::min(gbps, link_properties(c, link_class_between(c, a, b)).bytes_per_second / 1e9);
  }
  return gbps;
}

// A calibrated class's bandwidth is the bus bandwidth one collective alone reached over hops of that class
// (what calibrate fits from nccl-tests' busbw), so it replaces NCCL's ladder there: inside the nodes when
// every hop class of the nodes' rings is calibrated (the slowest), across them the network's, shared by the
// communicators that reach one NIC. Channels, protocols and latencies stay NCCL's.
void apply_calibration(NcclTopology& t, const Cluster& cluster, const Calibration& calibration, int share) {
  if (t.intra_hops) {
    double bus = std::numeric_limits<double>::infinity();
    bool every_class = true;
    for (int node = 0; node < t.nodes; ++node) {
      const std::span<const int> local = nccl_node_members(t, node);
      for (std::size_t i = 0; local.size() > 1 && i < local.size(); ++i) {
        const LinkClass c = t.nvlink ? LinkClass::nvlink
                                     : link_class_between(cluster, local[i], local[(i + 1) % local.size()]);
        const std::optional<LinkCalibration>& link = calibration.links[static_cast<std::size_t>(c)];
        every_class = every_class && link.has_value();
        if (link) bus = std::min(bus, link->bytes_per_second);
      }
    }
    if (every_class) t.intra_bus_bytes_per_second = bus;
  }
  const std::optional<LinkCalibration>& network =
      calibration.links[static_cast<std::size_t>(LinkClass::network)];
  if (t.nodes > 1 && network) t.inter_bus_bytes_per_second = network->bytes_per_second / share;
}

NcclTopology topology_of(const Cluster& cluster, const NcclGroup& group, int copy, const NicUsers& users,
                         const Calibration* calibration) {
  NcclTopology t;
  t.ranks = group.ranks;
  t.gpus_per_node = cluster.gpus_per_node;
  for (int i = 0; i < group.ranks; ++i) {
    const int r = rank_of(group, copy, i);
    t.members.push_back(r);
    if (i == 0 || cluster.node_of(r) != cluster.node_of(t.members[static_cast<std::size_t>(i) - 1]))
      t.node_starts.push_back(i);
  }
  t.nodes = static_cast<int>(t.node_starts.size());
  t.node_starts.push_back(group.ranks);
  t.ranks_per_node = group.ranks / t.nodes;
  t.nvlink = cluster.intra_node == IntraNodeKind::nvswitch;
  t.ll128 = t.nvlink;  // NCCL enables LL128 on NVLink paths only: off on plain PCIe boxes
  t.generation = generation_of(cluster.gpu.name);
  int intra_channels = 1;
  double intra_gbps = std::numeric_limits<double>::infinity();
  for (int node = 0; node < t.nodes; ++node) {
    const std::span<const int> local = nccl_node_members(t, node);
    if (local.size() < 2) continue;
    t.intra_hops = true;
    // NVLink: every node alike; PCIe: the slowest hop of any node's ring (NCCL keeps the least bwIntra).
    intra_gbps =
        std::min(intra_gbps, t.nvlink ? kNvlinkCreditFraction * cluster.nvswitch.gpu_bytes_per_second / 1e9
                                      : slowest_pcie_hop_gbps(cluster, local));
  }
  if (t.intra_hops) {
    t.intra_bus_bytes_per_second =
        1e9 * ladder_total(kIntraLadderGBps, std::size(kIntraLadderGBps), intra_gbps, &intra_channels);
  }
  int channels = intra_channels, nic_share = 1;
  if (t.nodes > 1) {
    // Rails: the distinct NICs the members reach, on the node that reaches fewest (NCCL keeps the least
    // channels any node found); communicators reaching the same NIC of a node share it.
    int rails = std::numeric_limits<int>::max(), share = 1;
    for (int node = 0; node < t.nodes; ++node) {
      const std::span<const int> local = nccl_node_members(t, node);
      int nics = 0;  // members in rank order reach their NICs in order: count where the NIC changes
      for (std::size_t i = 0; i < local.size(); ++i) {
        if (i > 0 && nic_of(cluster, local[i]) == nic_of(cluster, local[i - 1])) continue;
        ++nics;
        share = std::max(share, users.of(cluster, local[i]));
      }
      rails = std::min(rails, nics);
    }
    int one = 1;
    const double per_nic = ladder_total(kInterLadderGBps, std::size(kInterLadderGBps),
                                        cluster.network.nic_bytes_per_second / 1e9, &one);
    t.rails = rails;
    channels = rails;
    t.inter_bus_bytes_per_second = 1e9 * channels * per_nic / share;
    nic_share = share;
  }
  // NCCL duplicates the searched channels (more SMs in flight) up to its channel limit.
  t.channels = std::min(kMaxChannels, 2 * channels);
  // NVLS: NVSwitch nodes of Hopper or later where every node holds two or more members; across nodes one
  // head per NIC at the NIC's inter-node rung, inside one node one channel per member at the ladder's top.
  const int gen = static_cast<int>(t.generation);
  t.nvls = t.nvlink && kNvlsEfficiency[gen] > 0 && t.ranks_per_node >= 2;
  for (int node = 0; t.nvls && node < t.nodes; ++node) t.nvls = nccl_node_members(t, node).size() >= 2;
  if (t.nvls) {
    int one = 1;
    t.nvls_channels =
        std::min(kMaxNvlsArity, t.nodes > 1 ? std::min(t.rails, t.ranks_per_node) : t.ranks_per_node);
    t.nvls_bytes_per_second =
        1e9 * (t.nodes > 1 ? ladder_total(kInterLadderGBps, std::size(kInterLadderGBps),
                                          cluster.network.nic_bytes_per_second / 1e9, &one) /
                                 nic_share
                           : kNvlsSpeedGBps[gen]);
  }
  if (calibration != nullptr) apply_calibration(t, cluster, *calibration, nic_share);
  return t;
}

// Whether nccl_estimate gives the two topologies the same answers.
bool same_shape(const NcclTopology& a, const NcclTopology& b) {
  return a.ranks == b.ranks && a.nodes == b.nodes && a.ranks_per_node == b.ranks_per_node &&
         a.intra_hops == b.intra_hops && a.channels == b.channels &&
         a.intra_bus_bytes_per_second == b.intra_bus_bytes_per_second &&
         a.inter_bus_bytes_per_second == b.inter_bus_bytes_per_second && a.nvlink == b.nvlink &&
         a.ll128 == b.ll128 && a.generation == b.generation && a.nvls == b.nvls &&
         a.nvls_channels == b.nvls_channels && a.nvls_bytes_per_second == b.nvls_bytes_per_second;
}

NcclFamily family_of(const Cluster& cluster, const NcclGroup& group, const Calibration* calibration) {
  NcclFamily family;
  const NicUsers users = nic_users(cluster, group);
  for (int copy = 0; copy < std::max(1, group.concurrent); ++copy) {
    family.copies.push_back(topology_of(cluster, group, copy, users, calibration));
    bool seen = false;
    for (const std::size_t s : family.shapes)
      seen = seen || same_shape(family.copies[s], family.copies.back());
    if (!seen) family.shapes.push_back(family.copies.size() - 1);
  }
  return family;
}

}  // namespace

NcclGroup nccl_group_of(GroupKind group, int gpus, int group_size) {
  switch (group) {
    case GroupKind::intra:
      return {group_size, 1, gpus / group_size, group_size};
    case GroupKind::inter:
      return {gpus / group_size, group_size, group_size, 1};
    case GroupKind::global:
      break;
  }
  return {gpus, 1, 1, 0};
}

NcclTopology nccl_topology(const Cluster& cluster, const NcclGroup& group) {
  return topology_of(cluster, group, 0, nic_users(cluster, group), nullptr);
}

NcclFamily nccl_family(const Cluster& cluster, const NcclGroup& group) {
  return family_of(cluster, group, nullptr);
}

NcclFamily nccl_family(const Cluster& cluster, const NcclGroup& group, const Calibration& calibration) {
  return family_of(cluster, group, &calibration);
}

namespace {

// NVLS inside one node, NVLSTree across nodes (all-reduce only), Simple only: the NVLS graph's bus bandwidth
// nChannels x min(bwIntra x eff x (nCh - 1) / nCh x (2 for all-reduce, else (ppn - 1) / ppn), bwInter (x2 at
// two nodes for the tree), NVLSTree's per-channel cap); ring-like algorithm bandwidth for all-reduce
// (x nRanks / nsteps), none for all-gather and reduce-scatter; latency 25 us (+ 2 log2(nodes) x 20.9 us).
NcclEstimate nvls_estimate(const NcclTopology& t, CollectiveKind kind, NcclAlgorithm algorithm, double bytes,
                           NcclEstimate e) {
  const bool all_reduce = kind == CollectiveKind::all_reduce, tree = algorithm == NcclAlgorithm::nvls_tree;
  // NVLS across nodes needs CollNet (SHARP on the network), which the clusters here do not have.
  if (!t.nvls || t.nvls_channels < 2 || (tree ? !all_reduce || t.nodes < 2 : t.nodes > 1)) return e;
  e.available = true;
  const int gen = static_cast<int>(t.generation);
  const double channels = t.nvls_channels, speed = t.nvls_bytes_per_second / 1e9;
  const double ppn = static_cast<double>(t.ranks) / t.nodes;
  double intra = speed * kNvlsEfficiency[gen] * (channels - 1) / channels;
  intra *= all_reduce ? 2.0 : (ppn - 1) / ppn;
  double bw = std::min(intra, speed * (tree && t.nodes <= 2 ? 2 : 1));
  if (tree) bw = std::min(bw, kPerChannelNvlsTreeGBps[gen][nodes_index(t.nodes)]);
  const double bus = channels * bw;
  const double algbw = all_reduce ? bus * t.ranks / ring_steps(kind, t.ranks) : bus;
  double lat = tree ? kNvlsTreeNvlinkLatencyUs : kNvlsNvlinkLatencyUs;
  if (tree) lat += 2 * std::floor(std::log2(t.nodes)) * kNvlsTreeNetLatencyUs;
  e.latency_seconds = lat * 1e-6;
  e.bus_bytes_per_second = bus * 1e9;
  e.bandwidth_seconds = bytes / (algbw * 1e9);
  return e;
}

// PAT: all-gather and reduce-scatter over one member per node, Simple only, on the tree graph's bus bandwidth
// x 0.75 with no conversion to algorithm bandwidth; latency 8 us + log2(nodes) x 14 us / 3.5 + 2.8 us per
// rank.
NcclEstimate pat_estimate(const NcclTopology& t, CollectiveKind kind, NcclProtocol protocol, double bytes,
                          NcclEstimate e) {
  if (kind == CollectiveKind::all_reduce || protocol != NcclProtocol::simple || t.nodes < 2 ||
      t.ranks != t.nodes)
    return e;
  e.available = true;
  const double bus = kPatEfficiency * t.inter_bus_bytes_per_second / 1e9;
  const double tree_net_latency = kNetLatencyUs[0][static_cast<int>(NcclProtocol::simple)];
  const double lat = kPatBaseLatencyUs + std::floor(std::log2(t.nodes)) * tree_net_latency / kPatLogDivisor +
                     t.ranks * kPatPerRankUs;
  e.latency_seconds = lat * 1e-6;
  e.bus_bytes_per_second = bus * 1e9;
  e.bandwidth_seconds = bytes / (bus * 1e9);
  return e;
}

}  // namespace

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
  if (algorithm == NcclAlgorithm::nvls || algorithm == NcclAlgorithm::nvls_tree) {
    return protocol == NcclProtocol::simple ? nvls_estimate(t, kind, algorithm, total_bytes, e) : e;
  }
  if (algorithm == NcclAlgorithm::pat) return pat_estimate(t, kind, protocol, total_bytes, e);
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
  if (t.nodes > 1 && t.intra_hops) bus = std::min(bus, t.intra_bus_bytes_per_second);
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
  // One member per node (NCCL's ppn == 1, as a float: every node, not the rounded average) exposes the
  // network latency fully: the tree's.
  const double inter = kNetLatencyUs[(t.ranks == t.nodes) ? 0 : a][p];
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
  for (const NcclAlgorithm a : values<NcclAlgorithm>()) {
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

NcclEstimate nccl_family_pick(const NcclFamily& family, CollectiveKind kind, double total_bytes) {
  NcclEstimate slowest;
  bool first = true;
  for (const std::size_t s : family.shapes) {
    const NcclEstimate e = nccl_pick(family.copies[s], kind, total_bytes);
    if (first || e.seconds() > slowest.seconds()) slowest = e;
    first = false;
  }
  return slowest;
}

}  // namespace shardscope
