// One SimGrid engine per process, configured for GPU interconnects (CM02, no cross-traffic, no TCP window).
#pragma once

#include <memory>

namespace simgrid::s4u { class Engine; }

namespace shardscope::sim {

// Creates the process's only engine with our network model settings. A second call in the same
// process throws SimulationError (SimGrid keeps global state: run each simulation in its own process).
simgrid::s4u::Engine& create_engine();

}  // namespace shardscope::sim
