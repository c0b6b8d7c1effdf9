// Pipeline schedules op by op: the orders by hand, their in-flight activations against the memory formula,
// the run of uniform stages against the textbook times, and the closed form of pipeline.hpp against the run.
#include "planner/core/pipeline_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace shardscope {
namespace {

std::string labels(const std::vector<PipelineOp>& order, int virtual_stages) {
  std::string out;
  for (const PipelineOp& op : order) out += (out.empty() ? "" : " ") + op_label(op, virtual_stages);
  return out;
}

TEST(PipelineSchedule, OrdersByHand) {
  EXPECT_EQ(labels(pipeline_order(PipelineSchedule::gpipe, 4, 1, 1, 3), 1), "F0 F1 F2 B0 B1 B2");
  // 1F1B, stage 1 of 4: 2 forwards first, then in turn, then the backwards left.
  EXPECT_EQ(labels(pipeline_order(PipelineSchedule::one_f_one_b, 4, 1, 1, 4), 1), "F0 F1 F2 B0 F3 B1 B2 B3");
  EXPECT_EQ(labels(pipeline_order(PipelineSchedule::one_f_one_b, 4, 1, 3, 3), 1), "F0 B0 F1 B1 F2 B2");
  // Fewer micro-batches than the warm-up: every forward first.
  EXPECT_EQ(labels(pipeline_order(PipelineSchedule::one_f_one_b, 4, 1, 0, 2), 1), "F0 F1 B0 B1");
  // Interleaved, 2 stages x 2 chunks, stage 0: 2 x 1 + 1 x 2 = 4 forwards first; forwards go chunk 0 of a
  // group of 2 micro-batches, then chunk 1; backwards chunk 1 first.
  EXPECT_EQ(labels(pipeline_order(PipelineSchedule::interleaved, 2, 2, 0, 4), 2),
            "F0.0 F1.0 F0.1 F1.1 F2.0 B0.1 F3.0 B1.1 F2.1 B0.0 F3.1 B1.0 B2.1 B3.1 B2.0 B3.0");
  EXPECT_EQ(labels(pipeline_order(PipelineSchedule::interleaved, 2, 2, 1, 2), 2),
            "F0.0 F1.0 F0.1 B0.1 F1.1 B1.1 B0.0 B1.0");
  // Where an op's output goes: forwards to the next global chunk, backwards to the one before; the model's
  // last forward and first backward send nothing; under interleaving the last stage's chunk 0 feeds stage 0.
  EXPECT_EQ(receiving_stage({0, 0, false}, 1, 4, 1), 2);
  EXPECT_EQ(receiving_stage({0, 0, true}, 1, 4, 1), 0);
  EXPECT_EQ(receiving_stage({0, 0, false}, 3, 4, 1), -1);
  EXPECT_EQ(receiving_stage({0, 0, true}, 0, 4, 1), -1);
  EXPECT_EQ(receiving_stage({0, 0, false}, 3, 4, 2), 0);
  EXPECT_EQ(receiving_stage({0, 1, true}, 0, 4, 2), 3);
  // A virtual-stage count outside the interleaved schedule is ignored.
  EXPECT_EQ(labels(pipeline_order(PipelineSchedule::one_f_one_b, 2, 3, 1, 2), 1), "F0 B0 F1 B1");
}

TEST(PipelineSchedule, OrdersRefuseCountsTheyCannotRun) {
  EXPECT_THROW(pipeline_order(PipelineSchedule::interleaved, 4, 2, 0, 6), std::invalid_argument);
  EXPECT_THROW(pipeline_order(PipelineSchedule::one_f_one_b, 4, 1, 4, 8), std::invalid_argument);
  EXPECT_THROW(pipeline_order(PipelineSchedule::gpipe, 4, 1, 0, 0), std::invalid_argument);
  EXPECT_THROW(pipeline_order(PipelineSchedule::gpipe, 0, 1, 0, 4), std::invalid_argument);
}

// The memory the search prices (in_flight_micro_batches) is what the order holds, for every stage.
TEST(PipelineSchedule, InFlightActivationsAreTheMemoryFormulas) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved}) {
    for (int p = 1; p <= 8; ++p) {
      for (int v = 1; v <= (schedule == PipelineSchedule::interleaved ? 4 : 1); ++v) {
        for (int m = 1; m <= 24; ++m) {
          if (schedule == PipelineSchedule::interleaved && m % p != 0) continue;
          for (int r = 0; r < p; ++r) {
            SCOPED_TRACE(std::string(to_string(schedule)) + " p " + std::to_string(p) + " v " +
                         std::to_string(v) + " m " + std::to_string(m) + " stage " + std::to_string(r));
            EXPECT_DOUBLE_EQ(peak_in_flight(pipeline_order(schedule, p, v, r, m), v),
                             in_flight_micro_batches(schedule, p, v, r, m));
          }
        }
      }
    }
  }
}

// PyTorch's stage keeps a buffer per micro-batch (and chunk) for each activation and gradient it receives;
// the received activations of the micro-batches in flight are the stage's inputs, counted already.
TEST(PipelineSchedule, ReceiveBuffersBeyondTheActivationsByHand) {
  const auto buffers = [](PipelineSchedule s, int p, int v, int r, int m) {
    return receive_buffers_beyond_activations(s, p, v, r, m);
  };
  // 1F1B, 4 stages, 8 micro-batches: the first receives gradients only (8); stage 2 receives 8 activations,
  // 3 of them in flight, and 8 gradients (5 + 8); the last receives activations only (8 - 1).
  EXPECT_DOUBLE_EQ(buffers(PipelineSchedule::one_f_one_b, 4, 1, 0, 8), 8);
  EXPECT_DOUBLE_EQ(buffers(PipelineSchedule::one_f_one_b, 4, 1, 1, 8), 13);
  EXPECT_DOUBLE_EQ(buffers(PipelineSchedule::one_f_one_b, 4, 1, 3, 8), 7);
  // GPipe holds every micro-batch: only the gradients' buffers are beyond.
  EXPECT_DOUBLE_EQ(buffers(PipelineSchedule::gpipe, 4, 1, 1, 8), 8);
  // Interleaved, 8 stages x 2 chunks, 8 micro-batches, stage 1 of 8: chunk 1 receives activations (chunk 0
  // is the model's first), both receive gradients: 3 x 8 buffers; all 16 chunks are in flight at its peak,
  // half of them chunk 1's inputs: 24 - 8.
  EXPECT_DOUBLE_EQ(buffers(PipelineSchedule::interleaved, 8, 2, 0, 8), 16);
  // No pipeline, no buffers.
  EXPECT_DOUBLE_EQ(buffers(PipelineSchedule::one_f_one_b, 1, 1, 0, 8), 0);
}

// Equal stages without sends: (m + p - 1) t for GPipe and 1F1B, (m + (p - 1) / v) t interleaved, whatever
// the forward's share of t; each stage idles (p - 1) / (v m) of its busy time, the bubble fraction.
TEST(PipelineSchedule, EqualStagesTakeTheTextbooksTime) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved}) {
    const int v = schedule == PipelineSchedule::interleaved ? 3 : 1;
    for (int p : {1, 2, 4, 8}) {
      for (int m : {8, 16, 24}) {
        for (double forward : {0.25, 1.0 / 3, 0.5}) {
          SCOPED_TRACE(std::string(to_string(schedule)) + " p " + std::to_string(p) + " m " +
                       std::to_string(m));
          const std::vector<StageDurations> equal(static_cast<std::size_t>(p), {forward, 1 - forward, 0});
          const ScheduledPipeline run = run_pipeline_schedule(schedule, v, m, equal, 0);
          EXPECT_NEAR(run.iteration_seconds, m + (p - 1.0) / v, 1e-9);
          for (const ScheduledStage& stage : run.stages) {
            EXPECT_NEAR(stage.busy_seconds, m, 1e-9);
            EXPECT_NEAR(stage.idle_seconds / stage.busy_seconds, bubble_fraction(schedule, p, v, m), 1e-9);
          }
        }
      }
    }
  }
}

// 1F1B, 2 stages, 2 micro-batches, forward 1 s, backward 2 s, sends 0.5 s. Asynchronous: stage 0 F0 0-1,
// F1 1-2; stage 1 F0 1.5-2.5, B0 2.5-4.5, F1 4.5-5.5, B1 5.5-7.5; stage 0 B0 5-7, B1 8-10. Blocking: each
// send holds its sender: stage 0 F0 0-1 (held to 1.5), F1 1.5-2.5; stage 1 F0 1.5-2.5, B0 2.5-4.5 (held to
// 5), F1 5-6, B1 6-8 (held to 8.5); stage 0 B0 5-7, B1 8.5-10.5, which is also the closed form: 2 sends + 6
// s of steps on the first micro-batch's way, then one more step of 3 s and a send.
TEST(PipelineSchedule, TwoStagesByHand) {
  const std::vector<StageDurations> two(2, {1, 2, 0});
  const ScheduledPipeline async = run_pipeline_schedule(PipelineSchedule::one_f_one_b, 1, 2, two, 0.5);
  EXPECT_DOUBLE_EQ(async.iteration_seconds, 10);
  ASSERT_EQ(async.stages[0].ops.size(), 4U);
  EXPECT_EQ(op_label(async.stages[0].ops[2].op, 1), "B0");
  EXPECT_DOUBLE_EQ(async.stages[0].ops[2].start_seconds, 5);
  EXPECT_DOUBLE_EQ(async.stages[1].ops[2].start_seconds, 4.5);
  EXPECT_DOUBLE_EQ(async.stages[1].end_seconds, 7.5);
  EXPECT_DOUBLE_EQ(async.stages[1].idle_seconds, 4);
  const ScheduledPipeline held =
      run_pipeline_schedule(PipelineSchedule::one_f_one_b, 1, 2, two, 0.5, PipelineSends::blocking);
  EXPECT_DOUBLE_EQ(held.iteration_seconds, 10.5);
  EXPECT_DOUBLE_EQ(held.stages[1].ops[2].start_seconds, 5);
  EXPECT_DOUBLE_EQ(held.stages[0].ops[1].start_seconds, 1.5);
  const std::vector<StageTiming> timings(2, StageTiming{3, 0, 1});
  EXPECT_DOUBLE_EQ(pipeline_iteration_seconds(PipelineSchedule::one_f_one_b, 1, 2, timings, 0.5), 10.5);
  // A tail runs after the stage's last backward; the iteration ends with the latest.
  const ScheduledPipeline tails =
      run_pipeline_schedule(PipelineSchedule::one_f_one_b, 1, 2, {{1, 2, 0.25}, {1, 2, 3}}, 0.5);
  EXPECT_DOUBLE_EQ(tails.stages[0].tail_start_seconds, 10);
  EXPECT_DOUBLE_EQ(tails.iteration_seconds, 10.5);
}

// Random stages under every schedule, with and without sends: `bound` is the compute-only bound the pipeline
// search prunes with (every stage's step over the chunks once, then the rest of the micro-batches at an even
// share of the compute); `closed` is the closed form of pipeline.hpp.
struct RandomRuns {
  double below_bound = 0;        // the most a run falls under the search's bound (relative; must stay 0)
  double above_blocking = 0;     // the most an asynchronous run exceeds the blocking run (must stay 0)
  double under_closed_form = 0;  // the most the closed form falls under an asynchronous run
  double over_closed_form = 0;   // the most the closed form exceeds an asynchronous run
};

RandomRuns random_runs(bool equal_forward_shares) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> spread(0.5, 1.5);
  RandomRuns out;
  for (PipelineSchedule schedule :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved}) {
    const int v = schedule == PipelineSchedule::interleaved ? 2 : 1;
    for (int p : {2, 3, 4, 8}) {
      for (int m : {8, 16, 32}) {
        if (schedule == PipelineSchedule::interleaved && m % p != 0) continue;
        for (double send : {0.0, 0.02, 0.1}) {
          std::vector<StageDurations> durations;
          std::vector<StageTiming> timings;
          double compute = 0;
          for (int r = 0; r < p; ++r) {
            const double step = spread(random);
            const double forward = step * (equal_forward_shares ? 1.0 : spread(random)) / 3;
            durations.push_back({forward, step - forward, 0.3 * spread(random)});
            timings.push_back({step, durations.back().tail_seconds, forward});
            compute += step;
          }
          const double bound = compute * (1.0 / v + (m - 1.0 / v) / p);
          const double closed = pipeline_iteration_seconds(schedule, v, m, timings, send);
          const double async = run_pipeline_schedule(schedule, v, m, durations, send).iteration_seconds;
          const double held = run_pipeline_schedule(schedule, v, m, durations, send, PipelineSends::blocking)
                                  .iteration_seconds;
          out.below_bound = std::max(out.below_bound, 1 - async / bound);
          out.above_blocking = std::max(out.above_blocking, async / held - 1);
          out.under_closed_form = std::max(out.under_closed_form, 1 - closed / async);
          out.over_closed_form = std::max(out.over_closed_form, closed / async - 1);
        }
      }
    }
  }
  return out;
}

// Every run takes at least the search's bound (so pruning by it loses no pipeline) and blocking sends never
// make a run faster. Where every stage's forward is the same share of its step, the closed form is an upper
// bound on the asynchronous run, well above it with unequal stages and sends; where the shares differ (the
// embedding's stage, the head's), the run can exceed it: GPipe's forwards run at the pace of the slowest
// forward and its backwards at the slowest backward's, not the slowest step's.
TEST(PipelineSchedule, RunsAgainstTheSearchsBoundAndTheClosedForm) {
  const RandomRuns equal = random_runs(true);
  EXPECT_LE(equal.below_bound, 1e-12);
  EXPECT_LE(equal.above_blocking, 1e-12);
  EXPECT_LE(equal.under_closed_form, 1e-12);
  EXPECT_GT(equal.over_closed_form, 0.05);
  const RandomRuns unequal = random_runs(false);
  EXPECT_LE(unequal.below_bound, 1e-12);
  EXPECT_LE(unequal.above_blocking, 1e-12);
  EXPECT_GT(unequal.under_closed_form, 0.05);
}

}  // namespace
}  // namespace shardscope
