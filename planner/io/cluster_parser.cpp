// Cluster parsing and validation: GPU spec, PCIe tree or NVSwitch, network; sizes checked for sanity.
#include "planner/io/internal/cluster_parser.hpp"

namespace shardscope {
namespace {

// `gpu.kernels`: measured kernel efficiencies (fractions of peak or of HBM bandwidth; the half-rate size in
// FLOPs of one product), read by every runtime profile but ideal.
KernelEfficiency parse_kernels(const YamlMap& map) {
  map.reject_unknown({"gemm_fraction", "gemm_half_rate_flops", "attention_forward_fraction",
                      "attention_backward_fraction", "elementwise_fraction", "fp8_speedup"});
  KernelEfficiency k;
  k.gemm_fraction = map.number("gemm_fraction", 1e-3, 1.0);
  k.gemm_half_rate_flops = map.number("gemm_half_rate_flops", 0, 1e15);
  k.attention_forward_fraction = map.number("attention_forward_fraction", 1e-3, 1.0);
  k.attention_backward_fraction = map.number("attention_backward_fraction", 1e-3, 1.0);
  k.elementwise_fraction = map.number("elementwise_fraction", 1e-3, 1.0);
  k.fp8_speedup = map.number_or("fp8_speedup", 0.0, 1.0, 4.0);
  return k;
}

GpuSpec parse_gpu(const YamlMap& map) {
  map.reject_unknown(
      {"name", "peak_fp16", "peak_fp32", "achievable_fraction", "memory", "hbm_bandwidth", "kernels"});
  GpuSpec gpu;
  gpu.name = map.name("name");
  gpu.peak_flops_per_second_fp16 = map.flops("peak_fp16");
  gpu.peak_flops_per_second_fp32 = map.flops("peak_fp32");
  gpu.achievable_fraction = map.number_or("achievable_fraction", 0.5, 1e-3, 1.0);
  gpu.memory_bytes = map.bytes("memory", 1 << 20, std::int64_t{1} << 44);
  gpu.hbm_bytes_per_second = map.bandwidth("hbm_bandwidth");
  if (map.has("kernels")) gpu.kernels = parse_kernels(map.map("kernels"));
  return gpu;
}

void parse_intra_node(const YamlMap& map, int gpus_per_node, Cluster& cluster) {
  if (map.choice<IntraNodeKind>("kind") == IntraNodeKind::nvswitch) {
    map.reject_unknown({"kind", "gpu_bandwidth", "latency"});
    cluster.intra_node = IntraNodeKind::nvswitch;
    cluster.nvswitch.gpu_bytes_per_second = map.bandwidth("gpu_bandwidth");
    cluster.nvswitch.latency_seconds = map.duration_or("latency", 1e-6);
    return;
  }
  map.reject_unknown({"kind", "generation", "lanes", "sockets", "switches_per_socket", "gpus_per_switch",
                      "gpu_link_bandwidth", "switch_uplink_bandwidth", "inter_socket_bandwidth", "latency"});
  cluster.intra_node = IntraNodeKind::pcie;
  PcieTopology& pcie = cluster.pcie;
  pcie.generation = static_cast<int>(map.integer_or("generation", 3, 1, 7));
  pcie.lanes = static_cast<int>(map.integer_or("lanes", 16, 1, 32));
  pcie.sockets = static_cast<int>(map.integer_or("sockets", 1, 1, 16));
  pcie.switches_per_socket = static_cast<int>(map.integer_or("switches_per_socket", 1, 1, 64));
  pcie.gpus_per_switch =
      static_cast<int>(map.integer_or("gpus_per_switch", gpus_per_node, 1, kMaxGpusPerNode));
  if (pcie.sockets * pcie.switches_per_socket * pcie.gpus_per_switch != gpus_per_node) {
    map.fail("gpus_per_switch",
             "sockets x switches_per_socket x gpus_per_switch (" + std::to_string(pcie.sockets) + " x " +
                 std::to_string(pcie.switches_per_socket) + " x " + std::to_string(pcie.gpus_per_switch) +
                 ") must equal gpus_per_node (" + std::to_string(gpus_per_node) + ")");
  }
  pcie.gpu_link_bytes_per_second = map.bandwidth("gpu_link_bandwidth");
  pcie.switch_uplink_bytes_per_second =
      map.bandwidth_or("switch_uplink_bandwidth", pcie.gpu_link_bytes_per_second);
  pcie.inter_socket_bytes_per_second =
      map.bandwidth_or("inter_socket_bandwidth", pcie.switch_uplink_bytes_per_second);
  pcie.latency_seconds = map.duration_or("latency", 1e-6);
}

NetworkTopology parse_network(const YamlMap& map) {
  map.reject_unknown({"kind", "nics_per_node", "nic_rate", "oversubscription", "nodes_per_leaf",
                      "leaves_per_pod", "spine_oversubscription", "latency"});
  NetworkTopology net;
  net.kind = map.choice_or("kind", NetworkKind::single_switch);
  net.nics_per_node = static_cast<int>(map.integer_or("nics_per_node", 1, 1, 64));
  net.nic_bytes_per_second = map.bandwidth("nic_rate");
  net.oversubscription = map.number_or("oversubscription", 1.0, 1.0, 1000.0);
  net.nodes_per_leaf = static_cast<int>(map.integer_or("nodes_per_leaf", 0, 0, kMaxNodes));
  net.leaves_per_pod = static_cast<int>(map.integer_or("leaves_per_pod", 0, 0, kMaxNodes));
  net.spine_oversubscription = map.number_or("spine_oversubscription", 1.0, 1.0, 1000.0);
  if (net.leaves_per_pod > 0 && (net.kind != NetworkKind::fat_tree || net.nodes_per_leaf == 0)) {
    map.fail("leaves_per_pod", "a spine level needs kind: fat_tree and nodes_per_leaf above 0");
  }
  if (net.spine_oversubscription != 1.0 && net.leaves_per_pod == 0) {
    map.fail("spine_oversubscription", "applies to a spine level: set leaves_per_pod too");
  }
  net.latency_seconds = map.duration_or("latency", 2e-6);
  return net;
}

}  // namespace

Cluster parse_cluster(const YamlMap& map) {
  map.reject_unknown({"name", "source", "nodes", "gpus_per_node", "gpu", "intra_node", "network"});
  Cluster cluster;
  cluster.name = map.name("name");
  cluster.source = map.optional_string("source").value_or("");
  cluster.nodes = static_cast<int>(map.integer("nodes", 1, kMaxNodes));
  cluster.gpus_per_node = static_cast<int>(map.integer("gpus_per_node", 1, kMaxGpusPerNode));
  if (static_cast<std::int64_t>(cluster.nodes) * cluster.gpus_per_node > kMaxGpus) {
    map.fail("nodes", "nodes x gpus_per_node exceeds " + std::to_string(kMaxGpus) + " GPUs");
  }
  cluster.gpu = parse_gpu(map.map("gpu"));
  parse_intra_node(map.map("intra_node"), cluster.gpus_per_node, cluster);
  if (map.has("network")) {
    cluster.network = parse_network(map.map("network"));
  } else if (cluster.nodes > 1) {
    map.fail("network", "missing; a cluster with more than one node needs a network section");
  }
  return cluster;
}

}  // namespace shardscope
