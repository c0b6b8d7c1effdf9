// Cluster: nodes of GPUs, the intra-node fabric (PCIe tree or NVSwitch), the network, and link classes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/names.hpp"
#include "planner/core/runtime_profile.hpp"

namespace shardscope {

struct GpuSpec {
  std::string name;
  double peak_flops_per_second_fp32 = 0;
  double peak_flops_per_second_fp16 = 0;  // tensor-core rate for fp16 and bf16
  double achievable_fraction = 0.5;       // fraction of peak reached by large GEMMs
  std::int64_t memory_bytes = 0;
  double hbm_bytes_per_second = 0;
  std::optional<KernelEfficiency> kernels;  // measured kernel efficiencies (runtimes other than ideal)
};

enum class IntraNodeKind { pcie, nvswitch };

template <>
struct EnumNames<IntraNodeKind> {
  static constexpr NameEntry<IntraNodeKind> table[] = {
      {IntraNodeKind::pcie, "pcie", "a PCIe tree of switches and sockets"},
      {IntraNodeKind::nvswitch, "nvswitch", "NVLink through NVSwitch"},
  };
};

// A PCIe tree: sockets, each with a root complex; switches under a socket; GPUs under a switch.
// Bandwidths are per direction (links are full duplex).
struct PcieTopology {
  int generation = 3;
  int lanes = 16;
  int sockets = 1;
  int switches_per_socket = 1;
  int gpus_per_switch = 1;
  double gpu_link_bytes_per_second = 0;       // GPU <-> its switch
  double switch_uplink_bytes_per_second = 0;  // switch <-> root complex
  double inter_socket_bytes_per_second = 0;   // root complex <-> root complex (QPI/UPI)
  double latency_seconds = 0;                 // per hop through the tree
};

// NVLink through NVSwitch: every GPU pair at full per-GPU bandwidth.
struct NvSwitchTopology {
  double gpu_bytes_per_second =
      0;  // per GPU per direction (DGX-A100: 300 GB/s of the 600 GB/s bidirectional)
  double latency_seconds = 0;
};

enum class NetworkKind { single_switch, fat_tree };

template <>
struct EnumNames<NetworkKind> {
  static constexpr NameEntry<NetworkKind> table[] = {
      {NetworkKind::single_switch, "single_switch", "every node on one switch"},
      {NetworkKind::fat_tree, "fat_tree", "leaf switches under a spine, possibly oversubscribed"},
  };
};

struct NetworkTopology {
  NetworkKind kind = NetworkKind::single_switch;
  int nics_per_node = 1;
  double nic_bytes_per_second = 0;      // per NIC per direction
  double oversubscription = 1.0;        // fat tree: leaf down/up bandwidth ratio (>= 1)
  int nodes_per_leaf = 0;               // fat tree: nodes under one leaf switch (0 = all)
  int leaves_per_pod = 0;               // fat tree: leaves under one spine group (0 = all: two levels)
  double spine_oversubscription = 1.0;  // fat tree: a pod's down/up bandwidth ratio to the core (>= 1)
  double latency_seconds = 0;           // NIC to NIC
};

// The kinds of path between two GPUs, from fastest to slowest in a typical box.
enum class LinkClass { same_switch, cross_switch, cross_socket, nvlink, network };

template <>
struct EnumNames<LinkClass> {
  static constexpr NameEntry<LinkClass> table[] = {
      {LinkClass::same_switch, "pcie-same-switch", "two GPUs under one PCIe switch"},
      {LinkClass::cross_switch, "pcie-cross-switch", "two PCIe switches under one socket"},
      {LinkClass::cross_socket, "pcie-cross-socket", "across the sockets' interconnect"},
      {LinkClass::nvlink, "nvlink", "NVLink through NVSwitch"},
      {LinkClass::network, "network", "between nodes"},
  };
};

struct LinkProperties {
  double bytes_per_second = 0;  // the bottleneck bandwidth of the path, per direction
  double latency_seconds = 0;   // one-way latency of the whole path
};

// The largest cluster a cluster file, a scenario or a CLI flag may describe.
constexpr int kMaxNodes = 100000;
constexpr int kMaxGpusPerNode = 1024;
constexpr int kMaxGpus = 1 << 20;  // nodes x gpus_per_node

struct Cluster {
  std::string name;
  std::string source;  // where the numbers come from (preset documentation)
  int nodes = 1;
  int gpus_per_node = 1;
  GpuSpec gpu;
  IntraNodeKind intra_node = IntraNodeKind::pcie;
  PcieTopology pcie;
  NvSwitchTopology nvswitch;
  NetworkTopology network;

  int gpus() const { return nodes * gpus_per_node; }
  int node_of(int rank) const { return rank / gpus_per_node; }
};

// Classifies the path between two ranks (which must differ).
LinkClass link_class_between(const Cluster& cluster, int rank_a, int rank_b);
// Bandwidth and latency of a lone flow on that path class.
LinkProperties link_properties(const Cluster& cluster, LinkClass link_class);
// The link classes present in this cluster, fastest first (for summaries).
std::vector<LinkClass> link_classes_present(const Cluster& cluster);

}  // namespace shardscope
