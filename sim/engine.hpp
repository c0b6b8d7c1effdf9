// One SimGrid engine per process, configured for GPU interconnects (CM02, no cross-traffic, no TCP window).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace simgrid::s4u {
class Engine;
}

namespace shardscope::sim {

// Creates the process's only engine with our network model settings. A second call in the same
// process throws SimulationError (SimGrid keeps global state: run each simulation in its own process).
simgrid::s4u::Engine& create_engine();

// Runs the engine until no event is left and checks that `finished` reached `expected` actors: SimGrid
// returns (with a "deadlock" log line) when actors wait forever, so a stuck schedule becomes a
// SimulationError naming `what` instead of a hang or a silently short time. Returns the final clock.
double run_to_completion(simgrid::s4u::Engine& engine, const std::int64_t& finished, std::int64_t expected,
                         const std::string& what);

}  // namespace shardscope::sim
