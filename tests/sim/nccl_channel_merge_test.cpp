// NCCL's channels between the same two ranks simulated as one weighted flow equal one flow per channel: on
// every shipped scenario (the 128-GPU one on 4 nodes), for its recommended plan and PaRO-IGG (intra-group
// collectives contending with the global ones), with overlap and so contention, time, per-GPU results and
// link bytes agree to SimGrid's max-min precision, with far fewer activities.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <sstream>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "shipped_scenarios.hpp"
#include "sim/iteration_sim.hpp"
#include "sim/runner.hpp"

namespace shardscope::sim {
namespace {

struct Case {
  std::string scenario;  // file name under scenarios/
  std::string strategy;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.scenario << " " << c.strategy; }

IterationResult merged_in_child(const std::string& text, const Plan& plan) {
  SimulationJob job;
  job.scenario_file =
      (std::filesystem::temp_directory_path() / ("shardscope_merge_" + std::to_string(::getpid()) + ".yaml"))
          .string();
  std::ofstream(job.scenario_file) << text;
  job.plan = plan;
  job.timeout_seconds = 300;
  const IterationResult result = ChildProcessRunner(SHARDSCOPE_BINARY).run(job);
  std::filesystem::remove(job.scenario_file);
  return result;
}

class NcclChannelMerge : public ::testing::TestWithParam<Case> {};

TEST_P(NcclChannelMerge, EqualsOneFlowPerChannel) {
  const Case& c = GetParam();
  const std::string text = test::small_scenario(c.scenario);
  const Scenario s = parse_scenario_string(text, c.scenario);
  const ValidScenario valid(s);
  const StrategyResult planned = plan_strategy(valid, Calibration{}, space_by_name(c.strategy, s.training));
  if (!planned.fits) GTEST_SKIP() << c.strategy << " does not fit " << c.scenario;
  const IterationResult merged = merged_in_child(text, planned.plan);
  IterationOptions per_channel;
  per_channel.merge_nccl_channels = false;
  const IterationResult reference = simulate_iteration(valid, Calibration{}, planned.plan, per_channel);

  constexpr double kMaxMinPrecision = 1e-4;  // SimGrid's max-min solver works to 1e-5 per share
  EXPECT_NEAR(merged.iteration_seconds, reference.iteration_seconds,
              kMaxMinPrecision * reference.iteration_seconds);
  ASSERT_EQ(merged.gpus.size(), reference.gpus.size());
  for (std::size_t g = 0; g < merged.gpus.size(); ++g) {
    EXPECT_EQ(merged.gpus[g].peak_memory_bytes, reference.gpus[g].peak_memory_bytes) << "rank " << g;
    EXPECT_NEAR(merged.gpus[g].exposed_comm_seconds, reference.gpus[g].exposed_comm_seconds,
                kMaxMinPrecision * reference.iteration_seconds)
        << "rank " << g;
  }
  EXPECT_LT(merged.activities, reference.activities);  // every shipped cluster runs several channels
}

std::vector<Case> every_shipped_scenario() {
  std::vector<Case> out;
  for (const std::string& f : test::shipped_scenario_files()) {
    out.push_back({f, "shardscope"});
    out.push_back({f, "paro-IGG"});
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name =
      info.param.scenario.substr(0, info.param.scenario.size() - 5) + "_" + info.param.strategy;
  return test::test_name(name);
}

INSTANTIATE_TEST_SUITE_P(ShippedScenarios, NcclChannelMerge, ::testing::ValuesIn(every_shipped_scenario()),
                         case_name);

}  // namespace
}  // namespace shardscope::sim
