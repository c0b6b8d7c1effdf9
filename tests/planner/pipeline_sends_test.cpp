// Sends between pipeline stages priced per boundary: stages of whole nodes send over the network with every
// GPU of a node sending; stages inside nodes send inside them, and only a node's last stage crosses to the
// next node, its GPUs sharing their rails' NICs. The schedule charges each send its own boundary's time.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/core/pipeline_schedule.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/pipeline_search.hpp"

namespace shardscope {
namespace {

// Sixteen layers of hidden 2048 at sequence 2048 on `cluster`, one micro-batch of one sample: each boundary
// tensor is 2048 x 2048 x 2 bytes (8 MiB).
PipelineOption pipeline(const std::string& cluster, int stages, const std::string& schedule = "1f1b") {
  const Scenario s = parse_scenario_string(
      "model:\n  transformer: {layers: 16, hidden: 2048, heads: 16, vocab: 32000, sequence_length: 2048, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {" +
          cluster +
          "}\ntraining: {micro_batch: 1, gradient_accumulation_steps: 8}\n"
          "parallelism: {pipeline: " +
          std::to_string(stages) + ", pipeline_schedule: " + schedule +
          (schedule == "interleaved" ? ", virtual_stages: 2" : "") + "}\n",
      "sends.yaml");
  const PipelineSearch search = search_pipelines(s, Calibration{});
  EXPECT_EQ(search.options.size(), 1u);
  return search.options.at(0);
}

constexpr double kTensorBytes = 2048.0 * 2048 * 2;

TEST(PipelineSends, WholeNodeStagesSendOverTheNetworkWithEveryGpuOfANode) {
  // DGX-A100: 8 NICs of 200 Gb/s, one per GPU; network latency 2 us.
  const PipelineOption o = pipeline("preset: dgx-a100, nodes: 2", 2);
  ASSERT_TRUE(o.fits) << o.why_not;
  EXPECT_DOUBLE_EQ(o.boundary_bytes, kTensorBytes);
  ASSERT_EQ(o.send_seconds.size(), 2u);
  EXPECT_DOUBLE_EQ(o.send_seconds[0], 2e-6 + kTensorBytes / 25e9);
  EXPECT_DOUBLE_EQ(o.boundary_seconds(), o.send_seconds[0]);
  // One 100 Gb/s NIC per node: eight GPUs share it.
  const PipelineOption one_nic = pipeline("preset: a100-40gb-2x8-100gbe", 2);
  EXPECT_DOUBLE_EQ(one_nic.send_seconds[0], 10e-6 + kTensorBytes / (12.5e9 / 8));
}

// Two nodes, four stages: stage 1 (node 0's last) sends to stage 2 on node 1; stages 0 -> 1 and 2 -> 3 stay
// inside their node. Crossing, the stage's four GPUs share the one NIC (a quarter each, not an eighth).
TEST(PipelineSends, InsideNodesOnlyANodesLastStageCrossesTheNetwork) {
  const PipelineOption o = pipeline("preset: a100-40gb-2x8-100gbe", 4);
  ASSERT_TRUE(o.fits) << o.why_not;
  ASSERT_EQ(o.send_seconds.size(), 4u);
  const double crossing = 10e-6 + kTensorBytes / (12.5e9 / 4);
  EXPECT_DOUBLE_EQ(o.send_seconds[1], crossing);
  EXPECT_DOUBLE_EQ(o.send_seconds[3], crossing);  // the last stage to the first (interleaved only)
  EXPECT_LT(o.send_seconds[0], crossing);
  EXPECT_DOUBLE_EQ(o.send_seconds[0], o.send_seconds[2]);
  EXPECT_DOUBLE_EQ(o.boundary_seconds(), crossing);
  // DGX-A100: a NIC per GPU, so crossing costs one NIC's rate; NVSwitch inside is faster still.
  const PipelineOption dgx = pipeline("preset: dgx-a100, nodes: 2", 4);
  EXPECT_DOUBLE_EQ(dgx.send_seconds[1], 2e-6 + kTensorBytes / 25e9);
  EXPECT_LT(dgx.send_seconds[0], dgx.send_seconds[1]);
}

TEST(PipelineSends, OneNodesStagesSendInsideIt) {
  const PipelineOption o = pipeline("preset: dgx-h100", 4, "interleaved");
  ASSERT_TRUE(o.fits) << o.why_not;
  ASSERT_EQ(o.send_seconds.size(), 4u);
  for (double s : o.send_seconds) EXPECT_DOUBLE_EQ(s, o.send_seconds[0]);  // NVSwitch: a port per GPU
  EXPECT_LT(o.send_seconds[0], 1e-4);
}

// GPipe, 3 stages, one micro-batch, forward 1 s and backward 2 s, sends 0.5 s across boundary 0 and 1.5 s
// across boundary 1: F 0-1, 1.5-2.5, 4-5; B 5-7 on stage 2, 8.5-10.5 on stage 1, 11-13 on stage 0.
TEST(PipelineSends, EachSendTakesItsBoundarysTimeByHand) {
  const std::vector<StageDurations> three(3, {1, 2, 0});
  const ScheduledPipeline run =
      run_pipeline_schedule(PipelineSchedule::gpipe, 1, 1, three, std::vector<double>{0.5, 1.5, 9});
  EXPECT_DOUBLE_EQ(run.iteration_seconds, 13);
  EXPECT_DOUBLE_EQ(run.stages[2].ops[0].start_seconds, 4);
  EXPECT_DOUBLE_EQ(run.stages[1].ops[1].start_seconds, 8.5);
  EXPECT_DOUBLE_EQ(run.stages[0].ops[1].start_seconds, 11);
  // Blocking: each sender waits for its own boundary's send.
  const ScheduledPipeline held = run_pipeline_schedule(
      PipelineSchedule::gpipe, 1, 1, three, std::vector<double>{0.5, 1.5, 9}, PipelineSends::blocking);
  EXPECT_DOUBLE_EQ(held.stages[1].tail_start_seconds, 11);  // its B ends 10.5, its send to stage 0 0.5 more
  EXPECT_EQ(send_boundary({0, 0, false}, 1, 3, 1), 1);
  EXPECT_EQ(send_boundary({0, 0, true}, 1, 3, 1), 0);
  EXPECT_EQ(send_boundary({0, 1, false}, 2, 3, 2), 2);  // interleaved: the last stage's chunk 1 to stage 0
  EXPECT_EQ(send_boundary({0, 1, true}, 0, 3, 2), 2);   // and its gradient back
}

// Equal boundaries are the one send time; any boundaries' run lies between the runs at their fastest and at
// their slowest; a count other than one per stage is refused.
TEST(PipelineSends, BoundariesBetweenTheirFastestAndSlowest) {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> spread(0.0, 0.2);
  for (PipelineSchedule schedule :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved}) {
    const int v = schedule == PipelineSchedule::interleaved ? 2 : 1;
    for (int p : {2, 4, 8}) {
      const std::vector<StageDurations> stages(static_cast<std::size_t>(p), {0.4, 0.6, 0.1});
      std::vector<double> sends;
      for (int r = 0; r < p; ++r) sends.push_back(spread(random));
      const double low = *std::min_element(sends.begin(), sends.end());
      const double high = *std::max_element(sends.begin(), sends.end());
      const double run = run_pipeline_schedule(schedule, v, 8, stages, sends).iteration_seconds;
      EXPECT_GE(run, run_pipeline_schedule(schedule, v, 8, stages, low).iteration_seconds);
      EXPECT_LE(run, run_pipeline_schedule(schedule, v, 8, stages, high).iteration_seconds);
      EXPECT_DOUBLE_EQ(run_pipeline_schedule(schedule, v, 8, stages, std::vector<double>(sends.size(), high))
                           .iteration_seconds,
                       run_pipeline_schedule(schedule, v, 8, stages, high).iteration_seconds);
    }
  }
  EXPECT_THROW(run_pipeline_schedule(PipelineSchedule::gpipe, 1, 2, std::vector<StageDurations>(3, {1, 1, 0}),
                                     std::vector<double>{0.1, 0.1}),
               std::invalid_argument);
}

}  // namespace
}  // namespace shardscope
