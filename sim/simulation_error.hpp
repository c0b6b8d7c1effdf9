// SimulationError: what the simulator throws (SimGrid's own exceptions are translated into it inside sim/).
#pragma once

#include <stdexcept>
#include <string>

namespace shardscope::sim {

class SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& message) : std::runtime_error("simulation: " + message) {}
};

}  // namespace shardscope::sim
