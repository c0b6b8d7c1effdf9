// The two-stream schedule by hand: streams in order, waits across streams, alpha-beta collectives, and
// the error for streams that wait on each other.
#include "planner/program/schedule.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/planner/program_tasks.hpp"

namespace shardscope {
namespace {

using test::compute;
using test::dgx_collectives;

Task gather(double bytes, int wait_for = -1) {
  Task t;
  t.stream = Task::Stream::comm;
  t.kind = CollectiveKind::all_gather;
  t.group = GroupKind::intra;
  t.total_bytes = bytes;
  t.wait_for_other = wait_for;
  return t;
}

TEST(Schedule, ComputeWaitsForItsGatherAndTheNextGatherOverlaps) {
  const CollectiveCost cost = dgx_collectives();
  const double g = cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 1e9);
  ASSERT_GT(g, 0);
  IterationProgram p;
  // gather 0; compute 1 waits for it (g + 1); gather 2 starts right after gather 0 (2g); compute 3 waits
  // for gather 2 and for compute 1: max(g + 1, 2g) + 1.
  p.tasks = {gather(1e9), compute(1.0, 0), gather(1e9), compute(1.0, 2)};
  const ProgramSchedule s = schedule_program(p, cost);
  EXPECT_DOUBLE_EQ(s.iteration_seconds, std::max(g + 1.0, 2 * g) + 1.0);
  EXPECT_DOUBLE_EQ(s.compute_seconds, 2.0);
}

TEST(Schedule, ACollectiveQueuedBehindComputeWaitsForIt) {
  const CollectiveCost cost = dgx_collectives();
  const double g = cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 1e9);
  IterationProgram p;
  // compute 0 (3 s); the gather waits for it; compute 2 runs beside the gather; the end is the later one.
  p.tasks = {compute(3.0), gather(1e9, 0), compute(0.5)};
  EXPECT_DOUBLE_EQ(schedule_program(p, cost).iteration_seconds, std::max(3.0 + g, 3.5));
}

TEST(Schedule, OneStreamAddsUp) {
  const CollectiveCost cost = dgx_collectives();
  IterationProgram p;
  p.tasks = {compute(1.0), compute(2.0), compute(0.25)};
  EXPECT_DOUBLE_EQ(schedule_program(p, cost).iteration_seconds, 3.25);
  EXPECT_DOUBLE_EQ(schedule_program(IterationProgram{}, cost).iteration_seconds, 0.0);
}

TEST(Schedule, StreamsWaitingOnEachOtherAreAnError) {
  const CollectiveCost cost = dgx_collectives();
  IterationProgram p;
  p.tasks = {compute(1.0, 1), gather(1e9, 0)};
  EXPECT_THROW(schedule_program(p, cost), std::logic_error);
}

TEST(Schedule, ManyMicroStepsFollowTheirPeriod) {
  // One micro-step: a gather prefetched after the previous micro-step's compute, then the compute that
  // needs it. Each micro-step takes g + 1; 2^20 of them are scheduled without being written out.
  const CollectiveCost cost = dgx_collectives();
  const double g = cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 1e9);
  IterationProgram p;
  p.tasks = {gather(1e9, 1), compute(1.0, 0)};
  p.tasks[0].waits_on_previous_step = true;
  p.step_tasks = 2;
  for (int steps : {1, 3, 64, 1000, 1 << 20}) {
    p.micro_steps = steps;
    const ProgramSchedule s = schedule_program(p, cost);
    EXPECT_NEAR(s.iteration_seconds, steps * (g + 1.0), 1e-9 * steps * (g + 1.0)) << steps;
    EXPECT_NEAR(s.compute_seconds, steps * 1.0, 1e-9 * steps) << steps;
  }
}

TEST(Schedule, AStreamFallingBehindKeepsItsOwnPace) {
  // The compute never waits; each micro-step's gather waits for its compute. With gathers of 2 s the
  // communication stream falls further behind every micro-step: 1 + 2K.
  const CollectiveCost cost = dgx_collectives();
  IterationProgram p;
  Task slow = compute(2.0, 0);
  slow.stream = Task::Stream::comm;
  p.tasks = {compute(1.0), slow, compute(0.5, 1)};  // the update waits for the last micro-step's comm
  p.step_tasks = 2;
  p.micro_steps = 100000;
  EXPECT_DOUBLE_EQ(schedule_program(p, cost).iteration_seconds, 1.0 + 2.0 * 100000 + 0.5);
}

}  // namespace
}  // namespace shardscope
