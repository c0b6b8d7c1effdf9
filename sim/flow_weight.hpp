// FlowWeight: starts a SimGrid flow that stands for several equal flows on one route, shared as they would
// be.
#pragma once

#include <memory>

namespace simgrid::kernel::resource {
class Model;
}
namespace simgrid::s4u {
class Comm;
}

namespace shardscope::sim {

// SimGrid's CM02 shares a link by max-min with each flow's penalty: its route's latency, applied once that
// latency is paid (until then the flow waits). A flow that stands for k flows of one route (NCCL's channels
// between the same two ranks) gets penalty latency / k, so it moves exactly what the k flows would together,
// against any other flow: one activity and one completion instead of k. The latency phase cannot carry a
// penalty of ours (the network model keeps its own, not in SimGrid's public headers), so such a flow runs
// with its latency scaled to 0 (a latency-factor callback) and its caller starts it a route latency later.
class FlowWeight {
 public:
  // Installs the latency-factor callback on the engine's network model (a platform must be loaded; every
  // other flow keeps the factor 1, CM02's). Throws SimulationError when the model is not a SimGrid kernel
  // model (it always is in SimGrid 3.32).
  FlowWeight();
  // Starts `flow` (a host-to-host comm of `payload_bytes`, not started) without its route's latency, shared
  // as `flows` flows whose penalty would be `route_latency_seconds` (1 for a route without latency).
  void start(simgrid::s4u::Comm& flow, double payload_bytes, int flows, double route_latency_seconds) const;

 private:
  simgrid::kernel::resource::Model* model_ = nullptr;
  std::shared_ptr<double> latency_factor_;  // what the callback answers: 1, or 0 while start() runs
};

}  // namespace shardscope::sim
