// Platform: the SimGrid hosts, links and explicit routes of a Cluster (PCIe tree, NVSwitch, NICs, network).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"

namespace simgrid::s4u {
class Host;
class NetZone;
class Link;
}  // namespace simgrid::s4u

namespace shardscope::sim {

// Builds the platform inside the current engine. Routes are added for the given ordered rank pairs only
// (a full zone with every pair would be quadratic). The links are the calibrated fabric's
// (planner/core/fabric.hpp), the very links the planner shares among a family's rings, so a path's capacity
// and summed latency are the planner's.
class Platform {
 public:
  Platform(const Cluster& cluster, const Calibration& calibration,
           const std::vector<std::pair<int, int>>& routed_pairs);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  simgrid::s4u::Host* host(int rank) const;
  int gpus() const;
  // One direction of one link on a route.
  struct RouteHop {
    std::string link;
    bool up = true;
    double bytes_per_second = 0;
  };
  // The hops of the route from rank a to rank b (a routed pair; empty for a == b).
  const std::vector<RouteHop>& route(int a, int b) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardscope::sim
