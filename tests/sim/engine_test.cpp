// A schedule that cannot progress (a ring whose neighbour never joins) is reported, never a hang.
#include "sim/engine.hpp"

#include <gtest/gtest.h>

#include <simgrid/s4u.hpp>

#include "planner/io/cluster_presets.hpp"
#include "sim/collectives/ring_actor.hpp"
#include "sim/platform.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

TEST(Engine, AStuckScheduleIsASimulationErrorNotAHang) {
  const Cluster c = cluster_preset("titan-rtx-8-pcie3");
  simgrid::s4u::Engine& engine = create_engine();
  Platform platform(c, Calibration{}, {{0, 1}, {1, 0}});
  std::int64_t messages = 0, finished = 0;
  RingPhase phase;
  phase.name = "stuck";
  phase.ranks = std::make_shared<const std::vector<int>>(std::vector<int>{0, 1});
  phase.chunk_bytes = 1e6;
  phase.steps = 1;
  simgrid::s4u::Actor::create("rank0", platform.host(0), [&] {
    run_ring_phase(phase, 0, messages);  // rank 1 never joins: waits forever
    ++finished;
  });
  try {
    run_to_completion(engine, finished, 1, "the test ring");
    FAIL() << "expected a SimulationError";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("the test ring could not progress: 1 of 1 actor(s) never finished"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shardscope::sim
