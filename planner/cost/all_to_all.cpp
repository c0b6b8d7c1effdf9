// All-to-all pricing: pair flows counted on every link direction of the calibrated fabric.
#include "planner/cost/all_to_all.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/core/fabric.hpp"

namespace shardscope {

namespace {

// Counted once per fabric and group size: the planner builds a cost model per batch size and strategy.
struct AllToAllCache {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, AllToAllLink> links;
};

AllToAllCache& all_to_all_cache() {
  static AllToAllCache cache;
  return cache;
}

AllToAllLink count_all_to_all(const Cluster& cluster, const Fabric& fabric, int group_size) {
  const int n = cluster.gpus();
  AllToAllLink out;
  out.ranks = group_size;
  // Groups inside a node: one node's groups stand for every node's.
  const int priced_ranks = group_size <= cluster.gpus_per_node ? cluster.gpus_per_node : n;
  std::unordered_map<std::uint64_t, std::int64_t> flows;  // pair flows per link direction
  std::vector<FabricHop> hops;
  for (int first = 0; first < priced_ranks; first += group_size) {
    for (int a = first; a < first + group_size; ++a) {
      for (int b = first; b < first + group_size; ++b) {
        if (a == b) continue;
        hops.clear();
        fabric.path(a, b, hops);
        double latency_seconds = 0;
        for (const FabricHop& hop : hops) {
          ++flows[(hop.link << 1) | (hop.up ? 1u : 0u)];
          latency_seconds += fabric.link(hop.link).latency_seconds;
        }
        out.alpha_seconds = std::max(out.alpha_seconds, latency_seconds);
      }
    }
  }
  for (const auto& [direction, count] : flows) {
    const double bytes_per_second = fabric.link(direction >> 1).bytes_per_second;
    out.seconds_per_byte =
        std::max(out.seconds_per_byte, static_cast<double>(count) / group_size / bytes_per_second);
  }
  return out;
}

}  // namespace

AllToAllLink all_to_all_link(const Cluster& cluster, const Calibration& calibration, int group_size) {
  const int n = cluster.gpus();
  if (group_size < 1 || n % group_size != 0) {
    throw std::invalid_argument("an all-to-all group of " + std::to_string(group_size) +
                                " ranks does not divide the " + std::to_string(n) + " GPUs");
  }
  if (group_size == 1) return AllToAllLink{};
  const Fabric fabric(cluster, calibration);
  const std::pair<std::string, int> key{fabric.key(), group_size};
  AllToAllCache& cache = all_to_all_cache();
  {
    const std::lock_guard<std::mutex> lock(cache.mutex);
    if (const auto it = cache.links.find(key); it != cache.links.end()) return it->second;
  }
  const AllToAllLink out = count_all_to_all(cluster, fabric, group_size);
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.links.size() >= 64) cache.links.clear();
  cache.links.emplace(key, out);
  return out;
}

}  // namespace shardscope
