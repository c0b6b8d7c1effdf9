// Fabric: the links a path between two GPUs crosses (PCIe tree, NVSwitch ports, NICs, fat-tree leaf and
// spine uplinks) with their calibrated capacities and latencies. The planner counts ring flows on these
// links; the simulator builds its SimGrid links from the same description, so the two cannot drift apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"

namespace shardscope {

// One direction of one link on a path. `link` identifies the link (fabric_link_name spells it).
struct FabricHop {
  std::uint64_t link = 0;
  bool up = true;  // direction of travel through a split-duplex link
};

struct FabricLink {
  double bytes_per_second = 0;  // per direction
  double latency_seconds = 0;
};

// The links of a cluster with a calibration applied. A calibrated link class sets the links its path adds
// to the class inside it: pcie-same-switch the two GPU links, pcie-cross-switch the switch uplinks,
// pcie-cross-socket the socket link, nvlink the NVSwitch ports, network the NICs (and, in proportion, the
// fat-tree uplinks). Its alpha is split over those links so that the path's summed latency is the alpha;
// its bandwidth is the capacity of the links it sets, so the path's bottleneck is the calibrated value
// unless a class inside it is slower (a path is never faster than its slowest link).
class Fabric {
 public:
  Fabric(const Cluster& cluster, const Calibration& calibration);

  // Appends the hops from rank a to rank b (a != b) to `out`, in travel order.
  void path(int a, int b, std::vector<FabricHop>& out) const;
  FabricLink link(std::uint64_t id) const;
  // A readable unique name ("n0.gpu3.pcie", "n1.nic0", "leaf2.uplink", "pod0.uplink").
  static std::string link_name(std::uint64_t id);
  // Every number the paths and links depend on, exactly (hex floats): equal keys, equal fabrics.
  std::string key() const;

 private:
  Cluster cluster_;
  double gpu_link_latency_ = 0, uplink_latency_ = 0, socket_latency_ = 0;
  double nvlink_latency_ = 0, nic_latency_ = 0;
};

}  // namespace shardscope
