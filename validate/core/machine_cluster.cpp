// Measurements -> machine description (rates) -> cluster YAML with explicit units.
#include "validate/core/machine_cluster.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace shardscope::validate {

namespace {

std::string number(double value, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g%s", value, unit);
  return text;
}

}  // namespace

MachineCluster machine_cluster(const Measurements& m) {
  MachineCluster out;
  double flops = 0, seconds = 0;
  for (const GemmSample& g : m.gemms) {
    flops += g.flops;
    seconds += g.time_seconds;
    if (g.time_seconds > 0)
      out.peak_flops_per_second = std::max(out.peak_flops_per_second, g.flops / g.time_seconds);
  }
  if (flops <= 0 || seconds <= 0) throw std::invalid_argument("measurements: no GEMM measured (gemms)");
  out.flops_per_second = flops / seconds;

  const BandwidthSample* largest = nullptr;
  for (const BandwidthSample& e : m.elementwise) {
    if (e.time_seconds > 0 && (!largest || e.bytes > largest->bytes)) largest = &e;
  }
  if (!largest) throw std::invalid_argument("measurements: no element-wise bandwidth measured (elementwise)");
  out.memory_bytes_per_second = largest->bytes / largest->time_seconds;

  std::vector<CollectiveSample> rows;
  for (const CollectiveSample& c : m.collectives) {
    if (c.op == CollectiveKind::all_reduce && c.group == GroupKind::global && c.group_size >= 2 &&
        c.time_seconds > 0)
      rows.push_back(c);
  }
  if (rows.empty()) throw std::invalid_argument("measurements: no all-reduce over all ranks (collectives)");
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  std::vector<double> top;
  for (std::size_t i = rows.size() - std::min<std::size_t>(3, rows.size()); i < rows.size(); ++i) {
    top.push_back(rows[i].busbw_gbps * 1e9);
  }
  std::sort(top.begin(), top.end());
  out.link_bytes_per_second = top[top.size() / 2];
  double fastest = std::numeric_limits<double>::infinity();
  for (const CollectiveSample& c : rows) {
    if (c.bytes <= 4096) fastest = std::min(fastest, c.time_seconds / (2.0 * (c.group_size - 1)));
  }
  out.link_latency_seconds = std::isfinite(fastest) ? fastest : rows.front().time_seconds;
  return out;
}

std::string machine_cluster_yaml(const Measurements& m, const MachineCluster& c) {
  const int nodes = std::max(1, m.machine.ranks / std::max(1, m.machine.ranks_per_node));
  const std::string host = m.machine.hostnames.empty() ? "unknown" : m.machine.hostnames.front();
  std::string y;
  y += "# The machine shardscope-validate measured (" + m.machine.backend + ", " +
       std::to_string(m.machine.ranks) + " ranks on " + host +
       "), written by `shardscope-validate describe`.\n";
  y += "name: " + m.machine.backend + "-" + std::to_string(m.machine.ranks) + "rank\n";
  y += "source: >\n";
  y += "  Measured by shardscope-validate bench: each rank is a device; peak FLOP/s is the fastest of the\n";
  y +=
      "  scenario's matrix products, the achievable fraction the rate the ranks reached together on all of\n";
  y +=
      "  them (so peak x fraction is the step's mix and every product's own fraction is at most 1), memory\n";
  y += "  bandwidth the largest\n";
  y += "  element-wise loop, the intra-node fabric MPI's shared-memory transport described as a "
       "non-blocking\n";
  y += "  switch (nvswitch: every pair at the all-reduce bus bandwidth), latency per ring step from the "
       "smallest\n";
  y += "  all-reduces. compute_scale " + number(m.machine.compute_scale, "") + ".\n";
  y += "nodes: " + std::to_string(nodes) + "\n";
  y += "gpus_per_node: " + std::to_string(m.machine.ranks_per_node) + "\n";
  y += "gpu:\n";
  y += "  name: \"" + (m.machine.device_name.empty() ? std::string("cpu rank") : m.machine.device_name) +
       "\"\n";
  y += "  peak_fp16: " + number(c.peak_flops_per_second / 1e9, "GFLOPS") + "\n";
  y += "  peak_fp32: " + number(c.peak_flops_per_second / 1e9, "GFLOPS") + "\n";
  y += "  achievable_fraction: " + number(c.flops_per_second / c.peak_flops_per_second, "") + "\n";
  y += "  memory: " + number(std::max(1.0, m.machine.memory_bytes_per_rank / 1048576.0), "MiB") + "\n";
  y += "  hbm_bandwidth: " + number(c.memory_bytes_per_second / 1e9, "GB/s") + "\n";
  y += "intra_node:\n";
  y += "  kind: nvswitch\n";
  y += "  gpu_bandwidth: " + number(c.link_bytes_per_second / 1e9, "GB/s") + "\n";
  y += "  latency: " + number(c.link_latency_seconds * 1e6, "us") + "\n";
  y += "network:\n";
  y += "  kind: single_switch\n";
  y += "  nics_per_node: 1\n";
  y += "  nic_rate: 10Gbps\n";
  y += "  latency: 20us\n";
  return y;
}

}  // namespace shardscope::validate
