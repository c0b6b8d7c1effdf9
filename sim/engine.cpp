// Engine set-up: the network model is chosen deliberately (see sim/README.md) and SimGrid is kept quiet.
#include "sim/engine.hpp"

#include <csignal>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/simulation_error.hpp"

namespace shardscope::sim {

simgrid::s4u::Engine& create_engine() {
  static std::unique_ptr<simgrid::s4u::Engine> engine;
  if (engine)
    throw SimulationError("a SimGrid simulation already ran in this process; run each in its own process");
  int argc = 4;
  std::string name = "shardscope";
  std::string log_root = "--log=root.thres:critical";
  std::string log_cfg = "--log=xbt_cfg.thres:critical";
  std::string log_ker = "--log=ker_engine.thres:critical";
  char* argv[] = {name.data(), log_root.data(), log_cfg.data(), log_ker.data(), nullptr};
  // SimGrid installs its own SIGINT handler, which prints the actors and ends the process from inside the
  // handler (a crash mid-simulation); keep whatever the caller had, so that Ctrl-C cancels through its
  // observer.
  struct sigaction caller_sigint {};
  sigaction(SIGINT, nullptr, &caller_sigint);
  engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  sigaction(SIGINT, &caller_sigint, nullptr);
  // CM02: a lone flow takes latency + size / bandwidth; no reverse "ACK" traffic, no TCP window bound.
  simgrid::s4u::Engine::set_config("network/model:CM02");
  simgrid::s4u::Engine::set_config("network/crosstraffic:0");
  simgrid::s4u::Engine::set_config("network/TCP-gamma:0");
  return *engine;
}

double run_to_completion(simgrid::s4u::Engine& engine, const std::int64_t& finished, std::int64_t expected,
                         const std::string& what) {
  engine.run();
  if (finished != expected) {
    throw SimulationError(what + " could not progress: " + std::to_string(expected - finished) + " of " +
                          std::to_string(expected) +
                          " actor(s) never finished (a dependency cycle or a collective "
                          "some ranks never joined)");
  }
  return simgrid::s4u::Engine::get_clock();
}

}  // namespace shardscope::sim
