// FlowWeight: a flow started without its route's latency and shared with penalty latency / flows.
#include "sim/flow_weight.hpp"

#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>

#include "sim/simulation_error.hpp"

namespace shardscope::sim {

FlowWeight::FlowWeight() : latency_factor_(std::make_shared<double>(1.0)) {
  simgrid::kernel::resource::NetworkModelIntf* network =
      simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
  model_ = dynamic_cast<simgrid::kernel::resource::Model*>(network);
  if (model_ == nullptr) throw SimulationError("the platform's network model is not a SimGrid kernel model");
  network->set_lat_factor_cb(
      [factor = latency_factor_](double, const simgrid::s4u::Host*, const simgrid::s4u::Host*,
                                 const std::vector<simgrid::s4u::Link*>&,
                                 const std::unordered_set<simgrid::s4u::NetZone*>&) { return *factor; });
}

void FlowWeight::start(simgrid::s4u::Comm& flow, double payload_bytes, int flows,
                       double route_latency_seconds) const {
  if (flows < 1)
    throw SimulationError("a flow must stand for at least one flow, not " + std::to_string(flows));
  *latency_factor_ = 0;
  flow.start();
  *latency_factor_ = 1;
  simgrid::kernel::resource::Action::StateSet* started = model_->get_started_action_set();
  if (started->empty() || started->back().get_cost() != payload_bytes) {
    throw SimulationError("a flow of " + std::to_string(payload_bytes) +
                          " bytes is not the network model's newest action; it cannot be weighted");
  }
  // Without latency the flow is shared from the start, at penalty 1 until set here.
  const double penalty = route_latency_seconds > 0 ? route_latency_seconds : 1.0;
  started->back().set_sharing_penalty(penalty / flows);
}

}  // namespace shardscope::sim
