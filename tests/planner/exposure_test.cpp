// Exposed communication by hand: collectives the compute stream waits for, those it hides, a stream that
// falls behind, one stream, many micro-steps (shipped_scenarios_test adds them up on every shipped scenario).
#include "planner/program/exposure.hpp"

#include <gtest/gtest.h>

#include "planner/program/schedule.hpp"
#include "tests/planner/program_tasks.hpp"

namespace shardscope {
namespace {

using test::compute;
using test::dgx_collectives;

using Stage = CollectiveCall::Stage;

Task collective(CollectiveKind kind, Stage stage, double bytes, int wait_for = -1) {
  Task t;
  t.stream = Task::Stream::comm;
  t.kind = kind;
  t.stage = stage;
  t.group = GroupKind::intra;
  t.total_bytes = bytes;
  t.wait_for_other = wait_for;
  return t;
}

Task gather(Stage stage, int wait_for = -1) {
  return collective(CollectiveKind::all_gather, stage, 1e9, wait_for);
}

const CollectiveExposure& row(const ProgramExposure& e, Stage stage) {
  for (const CollectiveExposure& r : e.rows) {
    if (r.stage == stage) return r;
  }
  throw std::logic_error("no row");
}

TEST(Exposure, TheFirstGatherIsExposedAndThePrefetchedOneHidden) {
  const CollectiveCost cost = dgx_collectives();
  const double g = cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 1e9);
  ASSERT_LT(g, 1.0);
  IterationProgram p;
  // gather 0 [0, g] with nothing to compute; gather 2 [g, 2g] under compute 1 [g, g + 1].
  p.tasks = {gather(Stage::forward_gather), compute(1.0, 0), gather(Stage::backward_gather), compute(1.0, 2)};
  const ProgramExposure e = program_exposure(p, cost);
  EXPECT_DOUBLE_EQ(e.iteration_seconds, g + 2.0);
  EXPECT_DOUBLE_EQ(e.compute_seconds, 2.0);
  EXPECT_NEAR(e.exposed_seconds, g, 1e-12);  // iteration - compute
  ASSERT_EQ(e.rows.size(), 2u);
  EXPECT_EQ(e.rows[0].stage, Stage::forward_gather);  // rows in stage order
  EXPECT_DOUBLE_EQ(row(e, Stage::forward_gather).exposed_seconds, g);
  EXPECT_DOUBLE_EQ(row(e, Stage::backward_gather).exposed_seconds, 0.0);
  EXPECT_DOUBLE_EQ(row(e, Stage::backward_gather).seconds, g);
  EXPECT_EQ(row(e, Stage::backward_gather).collectives, 1);
}

TEST(Exposure, ACollectiveLongerThanTheComputeBesideItShowsTheRest) {
  const CollectiveCost cost = dgx_collectives();
  const double r = cost.seconds(CollectiveKind::reduce_scatter, GroupKind::intra, 8e9);
  IterationProgram p;
  // compute 0 [0, 1]; the reduce-scatter [1, 1 + r] beside compute 2 [1, 1 + r / 4]: 3r/4 exposed.
  p.tasks = {compute(1.0), collective(CollectiveKind::reduce_scatter, Stage::gradient_reduce, 8e9, 0),
             compute(r / 4)};
  const ProgramExposure e = program_exposure(p, cost);
  EXPECT_DOUBLE_EQ(e.iteration_seconds, 1.0 + r);
  EXPECT_NEAR(row(e, Stage::gradient_reduce).exposed_seconds, 0.75 * r, 1e-12);
  EXPECT_NEAR(e.exposed_seconds, 0.75 * r, 1e-12);
}

TEST(Exposure, OnOneStreamEveryCollectiveIsExposed) {
  const CollectiveCost cost = dgx_collectives();
  const double g = cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 1e9);
  IterationProgram p;
  Task serial = gather(Stage::forward_gather);
  serial.stream = Task::Stream::compute;  // overlap off: the builder puts collectives on the compute stream
  p.tasks = {serial, compute(1.0), serial, compute(2.0)};
  const ProgramExposure e = program_exposure(p, cost);
  EXPECT_DOUBLE_EQ(e.iteration_seconds, 2 * g + 3.0);
  EXPECT_DOUBLE_EQ(e.compute_seconds, 3.0);  // kernels only
  EXPECT_NEAR(row(e, Stage::forward_gather).exposed_seconds, 2 * g, 1e-12);
  EXPECT_EQ(row(e, Stage::forward_gather).collectives, 2);
}

TEST(Exposure, EveryMicroStepCounts) {
  // A gather waiting for the previous micro-step's compute, the compute waiting for it: every gather is
  // exposed, in every one of the micro-steps (past 66, the settled micro-steps' increments are added).
  const CollectiveCost cost = dgx_collectives();
  const double g = cost.seconds(CollectiveKind::all_gather, GroupKind::intra, 1e9);
  IterationProgram p;
  p.tasks = {gather(Stage::forward_gather, 1), compute(1.0, 0)};
  p.tasks[0].waits_on_previous_step = true;
  p.step_tasks = 2;
  for (int steps : {1, 3, 64, 66, 67, 1000, 1 << 20}) {
    p.micro_steps = steps;
    const ProgramExposure e = program_exposure(p, cost);
    const ProgramSchedule s = schedule_program(p, cost);
    EXPECT_NEAR(e.iteration_seconds, s.iteration_seconds, 1e-9 * s.iteration_seconds) << steps;
    EXPECT_NEAR(e.exposed_seconds, steps * g, 1e-9 * steps) << steps;
    EXPECT_NEAR(row(e, Stage::forward_gather).exposed_seconds, steps * g, 1e-9 * steps) << steps;
    EXPECT_EQ(row(e, Stage::forward_gather).collectives, steps);
  }
}

TEST(Exposure, AStreamFallingBehindIsExposedAfterTheLastKernel) {
  // Reduce-scatters longer than the compute that produces them: the communication stream falls further
  // behind each micro-step and everything after the compute's end is theirs.
  const CollectiveCost cost = dgx_collectives();
  const double r = cost.seconds(CollectiveKind::reduce_scatter, GroupKind::intra, 32e9);
  const double kernel = r / 2;
  IterationProgram p;
  p.tasks = {compute(kernel), collective(CollectiveKind::reduce_scatter, Stage::gradient_reduce, 32e9, 0),
             compute(kernel, 1)};  // the update waits for the last micro-step's reduce-scatter
  p.step_tasks = 2;
  for (const int steps : {10, 100, 100000}) {
    p.micro_steps = steps;
    const ProgramExposure e = program_exposure(p, cost);
    EXPECT_NEAR(e.iteration_seconds, kernel + steps * r + kernel, 1e-9 * e.iteration_seconds);
    EXPECT_NEAR(e.compute_seconds, (steps + 1) * kernel, 1e-9 * e.iteration_seconds);
    // The reduce-scatters hide behind kernels while there are any; the time after the last is theirs.
    const double exposed = steps * r - (steps - 1) * kernel;
    EXPECT_NEAR(row(e, Stage::gradient_reduce).exposed_seconds, exposed, 1e-9 * e.iteration_seconds);
    EXPECT_NEAR(e.exposed_seconds, exposed, 1e-9 * e.iteration_seconds);
    EXPECT_EQ(row(e, Stage::gradient_reduce).collectives, steps);
  }
}

TEST(Exposure, AnEmptyProgramHasNothingToExpose) {
  const ProgramExposure e = program_exposure(IterationProgram{}, dgx_collectives());
  EXPECT_EQ(e.iteration_seconds, 0.0);
  EXPECT_TRUE(e.rows.empty());
}

}  // namespace
}  // namespace shardscope
