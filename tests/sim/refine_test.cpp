// refine_plans: the fastest candidate under simulation wins, failed simulations are kept with their reason,
// and bad input stops the refinement (a fake runner stands in for the child processes).
#include "sim/refine.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "planner/core/error.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

// Answers by the plan's micro-batch: a simulated time, or a failure; records what it was asked.
class FakeRunner final : public SimulationRunner {
 public:
  std::map<std::int64_t, double> seconds;  // micro-batch -> simulated iteration seconds
  std::map<std::int64_t, bool> times_out;
  std::map<std::int64_t, bool> bad_input;
  std::vector<SimulationJob> jobs;

  IterationResult run(const SimulationJob& job) override {
    jobs.push_back(job);
    const std::int64_t b = job.plan.micro_batch;
    if (bad_input[b]) throw InputError("s.yaml", 3, "training", "changed");
    if (times_out[b]) throw SimulationError("the simulation process timed out after 5 s and was killed");
    IterationResult r;
    r.iteration_seconds = seconds.at(b);
    r.samples_per_second = 8.0 * static_cast<double>(b) / r.iteration_seconds;
    r.gpus = {{0, 100.0 * static_cast<double>(b), 0, 0}, {1, 150.0 * static_cast<double>(b), 0, 0}};
    return r;
  }
};

Plan plan_at(std::int64_t micro_batch, double predicted_samples_per_second) {
  Plan p;
  p.strategy = "shardscope";
  p.micro_batch = micro_batch;
  p.predicted.samples_per_second = predicted_samples_per_second;
  return p;
}

TEST(Refine, PicksTheFastestUnderSimulationNotThePlannersFirst) {
  FakeRunner runner;
  runner.seconds = {{4, 1.0}, {2, 0.4}, {3, 0.8}};  // 32, 40, 30 samples/s
  SimulationJob job;
  job.scenario_file = "s.yaml";
  job.timeout_seconds = 5;
  const RefineOutcome out = refine_plans({plan_at(4, 40), plan_at(2, 35), plan_at(3, 30)}, runner, job);
  ASSERT_EQ(out.candidates.size(), 3u);
  EXPECT_EQ(out.chosen, 1);
  EXPECT_DOUBLE_EQ(out.candidates[1].simulated_samples_per_second, 40.0);
  EXPECT_DOUBLE_EQ(out.candidates[1].simulated_iteration_seconds, 0.4);
  EXPECT_DOUBLE_EQ(out.candidates[1].simulated_peak_memory_bytes, 300.0);       // the largest over the ranks
  EXPECT_DOUBLE_EQ(out.candidates[0].plan.predicted.samples_per_second, 40.0);  // the planner's, kept
  // Each job is the template with its own plan.
  ASSERT_EQ(runner.jobs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(runner.jobs[i].scenario_file, "s.yaml");
    EXPECT_EQ(runner.jobs[i].timeout_seconds, 5);
    EXPECT_EQ(runner.jobs[i].plan.micro_batch, out.candidates[i].plan.micro_batch);
  }
}

TEST(Refine, EqualSimulatedSpeedKeepsTheEarlierCandidate) {
  FakeRunner runner;
  runner.seconds = {{2, 0.5}, {4, 1.0}};  // both 32 samples/s
  const RefineOutcome out = refine_plans({plan_at(2, 30), plan_at(4, 31)}, runner, SimulationJob{});
  EXPECT_EQ(out.chosen, 0);
}

TEST(Refine, AFailedSimulationIsKeptWithItsReasonAndTheOthersGoOn) {
  FakeRunner runner;
  runner.seconds = {{2, 0.5}};
  runner.times_out[4] = true;
  const RefineOutcome out = refine_plans({plan_at(4, 40), plan_at(2, 30)}, runner, SimulationJob{});
  ASSERT_EQ(out.candidates.size(), 2u);
  EXPECT_FALSE(out.candidates[0].simulated);
  EXPECT_NE(out.candidates[0].failure.find("timed out after 5 s"), std::string::npos);
  EXPECT_EQ(out.chosen, 1);
}

TEST(Refine, NothingSimulatedChoosesNone) {
  FakeRunner runner;
  runner.times_out[2] = true;
  EXPECT_EQ(refine_plans({plan_at(2, 30)}, runner, SimulationJob{}).chosen, -1);
  EXPECT_EQ(refine_plans({}, runner, SimulationJob{}).chosen, -1);
}

TEST(Refine, BadInputStopsTheRefinement) {
  FakeRunner runner;
  runner.seconds = {{2, 0.5}};
  runner.bad_input[4] = true;
  EXPECT_THROW(refine_plans({plan_at(2, 30), plan_at(4, 40)}, runner, SimulationJob{}), InputError);
}

}  // namespace
}  // namespace shardscope::sim
