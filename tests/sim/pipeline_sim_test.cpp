// Simulated pipelines against the planner on every shipped cluster: the stage programs' steps and tails
// equal the planner's (their collectives run as the planner prices them), the schedule's run with its sends
// as flows within 5 % of the planner's run (equal where no send waits on another), every send made once per
// data-parallel rank; where the simulator's flows share a link the planner's fixed times do not see it.
#include "sim/pipeline_sim.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "planner/io/scenario_parser.hpp"
#include "planner/report/pipeline_search.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

struct Case {
  std::string name;
  std::string cluster;
  int stages = 2;
  std::string schedule = "1f1b";
  std::string runtime = "fsdp2";
  int tensor = 1;
};

Scenario whole(const Case& c) {
  std::string parallelism = "{pipeline: " + std::to_string(c.stages) + ", pipeline_schedule: " + c.schedule;
  if (c.schedule == "interleaved") parallelism += ", virtual_stages: 2";
  if (c.tensor > 1) parallelism += ", tensor: " + std::to_string(c.tensor) + ", sequence_parallel: true";
  return parse_scenario_string(
      "model:\n  transformer: {layers: 16, hidden: 2048, heads: 16, vocab: 32000, sequence_length: 2048, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {" +
          c.cluster + "}\ntraining: {micro_batch: 1, gradient_accumulation_steps: 8}\nexecution: {runtime: " +
          c.runtime + "}\nparallelism: " + parallelism + "}\n",
      c.name + ".yaml");
}

// Named in gtest's output by its name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-30); }

class PipelineSimAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(PipelineSimAgreement, StagesEqualThePlannerAndTheRunIsWithinFivePercent) {
  const Scenario s = whole(GetParam());
  const PipelineSearch search = search_pipelines(s, Calibration{});
  ASSERT_EQ(search.options.size(), 1u);
  const PipelineOption& option = search.options[0];
  ASSERT_TRUE(option.fits) << option.why_not;
  const ScheduledPipeline planned = schedule_pipeline(search, option);
  const PipelineSimulation simulated =
      simulate_pipeline(s, search, option, Calibration{}, IterationOptions{});
  ASSERT_EQ(simulated.stages.size(), option.stage_plans.size());
  for (std::size_t r = 0; r < simulated.stages.size(); ++r) {
    SCOPED_TRACE("stage " + std::to_string(r));
    const StageTiming& t = option.stage_plans[r].timing;
    EXPECT_LE(relative(simulated.stages[r].step_seconds, t.step_seconds), 1e-6);
    EXPECT_LE(relative(simulated.stages[r].forward_seconds, t.forward_seconds), 1e-6);
    EXPECT_LE(std::abs(simulated.stages[r].tail_seconds - t.tail_seconds), 1e-6 * t.step_seconds);
    EXPECT_GE(simulated.stages[r].idle_seconds, -1e-9);
  }
  EXPECT_LE(relative(simulated.iteration_seconds, planned.iteration_seconds), 0.05)
      << "simulated " << simulated.iteration_seconds << " s, planned " << planned.iteration_seconds << " s";
  // Per data-parallel rank and micro-batch, every chunk but the model's first and last sends each way.
  const int v = search.schedule == PipelineSchedule::interleaved ? search.virtual_stages : 1;
  const int ranks = simulated.platform_gpus / option.stages;
  EXPECT_EQ(simulated.sends,
            static_cast<std::int64_t>(ranks) * option.micro_batches * (2 * option.stages * v - 2));
  EXPECT_LE(simulated.slowest_send_seconds, 1.05 * option.boundary_seconds());
  EXPECT_GT(simulated.mean_send_seconds, 0);
}

INSTANTIATE_TEST_SUITE_P(
    EveryShippedCluster, PipelineSimAgreement,
    ::testing::Values(Case{"dgx_a100_whole_nodes", "preset: dgx-a100, nodes: 2", 2},
                      Case{"dgx_a100_inside_nodes", "preset: dgx-a100, nodes: 2", 4},
                      Case{"dgx_a100_interleaved", "preset: dgx-a100, nodes: 2", 4, "interleaved"},
                      Case{"dgx_a100_deepspeed", "preset: dgx-a100, nodes: 2", 4, "1f1b", "deepspeed"},
                      Case{"dgx_a100_gpipe_tp2", "preset: dgx-a100, nodes: 2", 2, "gpipe", "fsdp2", 2},
                      Case{"dgx_h100_one_node", "preset: dgx-h100", 4},
                      Case{"dgx_h100_interleaved", "preset: dgx-h100", 8, "interleaved"},
                      Case{"ethernet_whole_nodes", "preset: a100-40gb-2x8-100gbe", 2},
                      Case{"ethernet_inside_nodes", "preset: a100-40gb-2x8-100gbe", 4},
                      Case{"ethernet_deepspeed", "preset: a100-40gb-2x8-100gbe", 8, "1f1b", "deepspeed"},
                      Case{"pcie_two_stages", "preset: titan-rtx-8-pcie3", 2, "1f1b", "ideal"},
                      Case{"pcie_four_stages", "preset: titan-rtx-8-pcie3", 4, "1f1b", "ideal"},
                      Case{"pcie_eight_stages_gpipe", "preset: titan-rtx-8-pcie3", 8, "gpipe", "ideal"}),
    [](const ::testing::TestParamInfo<Case>& case_info) { return case_info.param.name; });

// Interleaved on two Ethernet nodes of one NIC each: the last stage's sends to the first cross the network
// while node 0's last stage sends to node 1 the other way on the same NICs' other direction, and forward and
// backward sends of neighbouring chunks meet on a link: the simulator's slowest send is slower than the
// planner's fixed time for that boundary (which assumes each boundary's sends alone).
TEST(PipelineSim, SendsThatShareALinkAreSlowerThanThePlannersFixedTimes) {
  const Case c{"ethernet_interleaved", "preset: a100-40gb-2x8-100gbe", 4, "interleaved", "ideal"};
  const Scenario s = whole(c);
  const PipelineSearch search = search_pipelines(s, Calibration{});
  const PipelineOption& option = search.options.at(0);
  ASSERT_TRUE(option.fits) << option.why_not;
  const PipelineSimulation simulated =
      simulate_pipeline(s, search, option, Calibration{}, IterationOptions{});
  EXPECT_GT(simulated.slowest_send_seconds, 1.01 * option.boundary_seconds());
  EXPECT_LE(relative(simulated.iteration_seconds, schedule_pipeline(search, option).iteration_seconds), 0.05);
}

TEST(PipelineSim, APipelineThatDoesNotFitIsRefused) {
  const Scenario s = whole({"small", "preset: dgx-h100", 2});
  const PipelineSearch search = search_pipelines(s, Calibration{});
  PipelineOption option = search.options.at(0);
  option.fits = false;
  option.why_not = "stage 1 needs 90 GiB";
  try {
    simulate_pipeline(s, search, option, Calibration{}, IterationOptions{});
    FAIL() << "simulated a pipeline that does not fit";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit: stage 1 needs 90 GiB"), std::string::npos)
        << e.what();
  }
}

TEST(PipelineSim, PastTheActivityLimitIsRefusedBeforeSimulating) {
  const Scenario s = whole({"small", "preset: dgx-a100, nodes: 2", 4});
  const PipelineSearch search = search_pipelines(s, Calibration{});
  IterationOptions options;
  options.max_activities = 1000;
  try {
    simulate_pipeline(s, search, search.options.at(0), Calibration{}, options);
    FAIL() << "simulated past the limit";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("the pipeline"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shardscope::sim
