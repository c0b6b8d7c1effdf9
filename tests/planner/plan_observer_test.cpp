// PlanObserver: the calls plan_scenario / plan_strategy make, monotonic progress, and cancellation.
#include "planner/search/plan_observer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

Scenario titan(const std::string& model, const std::string& memory_limit, int max_micro_batch) {
  return parse_scenario_string("model: {preset: " + model +
                               "}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                               "training: {memory_limit: " +
                               memory_limit +
                               ", runtime_reserve: 512MiB, precision: mixed-fp16, max_micro_batch: " +
                               std::to_string(max_micro_batch) + "}\n");
}

// A fake observer that records every call, and cancels once it has seen `cancel_after_batches` rows.
class Recorder : public PlanObserver {
 public:
  struct Call {
    enum class Kind { strategy, batch, progress, cancelled } kind;
    std::string strategy;
    int index = 0, count = 0;
    BatchRow row;
    double fraction = 0;
  };

  explicit Recorder(int cancel_after_batches = -1) : cancel_after_(cancel_after_batches) {}

  void strategy_started(std::string_view name, int index, int count) override {
    calls.push_back({Call::Kind::strategy, std::string(name), index, count, {}, 0});
  }
  void batch_solved(std::string_view strategy, const BatchRow& row) override {
    calls.push_back({Call::Kind::batch, std::string(strategy), 0, 0, row, 0});
    ++batches_;
  }
  void progress(double fraction) override { calls.push_back({Call::Kind::progress, {}, 0, 0, {}, fraction}); }
  bool cancelled() const override {
    const bool cancel = cancel_after_ >= 0 && batches_ >= cancel_after_;
    if (cancel) calls.push_back({Call::Kind::cancelled, {}, 0, 0, {}, 0});
    return cancel;
  }

  std::vector<Call> of(Call::Kind kind) const {
    std::vector<Call> out;
    for (const Call& c : calls) {
      if (c.kind == kind) out.push_back(c);
    }
    return out;
  }

  mutable std::vector<Call> calls;  // cancelled() is const but is recorded too

 private:
  int cancel_after_;
  int batches_ = 0;
};
using Kind = Recorder::Call::Kind;

// Rows reported for `strategy`, in order.
std::vector<BatchRow> rows_of(const Recorder& recorder, const std::string& strategy) {
  std::vector<BatchRow> rows;
  for (const Recorder::Call& c : recorder.of(Kind::batch)) {
    if (c.strategy == strategy) rows.push_back(c.row);
  }
  return rows;
}

void expect_progress_grows_to_one(const Recorder& recorder) {
  const std::vector<Recorder::Call> progress = recorder.of(Kind::progress);
  ASSERT_FALSE(progress.empty());
  for (std::size_t i = 1; i < progress.size(); ++i) EXPECT_GT(progress[i].fraction, progress[i - 1].fraction);
  EXPECT_GT(progress.front().fraction, 0.0);
  EXPECT_EQ(progress.back().fraction, 1.0);
  // The last call of all is progress(1); nothing comes after it.
  EXPECT_EQ(recorder.calls.back().kind, Kind::progress);
  EXPECT_EQ(recorder.calls.back().fraction, 1.0);
}

TEST(PlanObserver, PlanScenarioReportsStrategiesInOrderAndEveryRowOfTheResult) {
  const Scenario s = titan("nd-48x1536", "8GB", 8);
  Recorder recorder;
  const PlanReport report =
      plan_scenario(ValidScenario(s), Calibration{},
                    PlanRequest{.with_baselines = true, .search = {.observer = &recorder}});
  ASSERT_TRUE(report.best.fits);
  ASSERT_FALSE(report.baselines.empty());

  std::vector<const StrategyResult*> results{&report.best};
  for (const StrategyResult& b : report.baselines) results.push_back(&b);
  const std::vector<Recorder::Call> started = recorder.of(Kind::strategy);
  ASSERT_EQ(started.size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(started[i].strategy, results[i]->strategy);
    EXPECT_EQ(started[i].index, static_cast<int>(i));
    EXPECT_EQ(started[i].count, static_cast<int>(results.size()));
    EXPECT_EQ(rows_of(recorder, results[i]->strategy), results[i]->batches) << results[i]->strategy;
  }
  // Each row belongs to the strategy started last, and each is followed by a progress report.
  std::string current;
  for (std::size_t i = 0; i < recorder.calls.size(); ++i) {
    const Recorder::Call& c = recorder.calls[i];
    if (c.kind == Kind::strategy) current = c.strategy;
    if (c.kind != Kind::batch) continue;
    EXPECT_EQ(c.strategy, current);
    ASSERT_LT(i + 1, recorder.calls.size());
    EXPECT_EQ(recorder.calls[i + 1].kind, Kind::progress);
  }
  expect_progress_grows_to_one(recorder);
  // Watching does not change the answer.
  EXPECT_EQ(
      report_to_json(report, s).dump(),
      report_to_json(plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = true}), s)
          .dump());
}

TEST(PlanObserver, PlanStrategyReportsItselfAsOneOfOne) {
  const Scenario s = titan("nd-48x1536", "8GB", 8);
  Recorder recorder;
  const StrategyResult r = plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training),
                                         SearchOptions{.observer = &recorder});
  const std::vector<Recorder::Call> started = recorder.of(Kind::strategy);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].strategy, "fsdp");
  EXPECT_EQ(started[0].index, 0);
  EXPECT_EQ(started[0].count, 1);
  EXPECT_EQ(rows_of(recorder, "fsdp"), r.batches);
  EXPECT_EQ(recorder.of(Kind::progress).size(), r.batches.size());
  expect_progress_grows_to_one(recorder);
}

TEST(PlanObserver, ProgressReachesOneWhenTheScanStopsAtABatchThatDoesNotFit) {
  // Whole-model FSDP does not fit the wide model at all: one does-not-fit row, and the scan ends.
  const Scenario s = titan("ws-2x8192", "8GB", 16);
  Recorder recorder;
  const StrategyResult r = plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training),
                                         SearchOptions{.observer = &recorder});
  ASSERT_FALSE(r.fits);
  ASSERT_EQ(r.batches.size(), 1u);
  EXPECT_EQ(r.batches[0].status, BatchStatus::does_not_fit);
  EXPECT_EQ(rows_of(recorder, "fsdp"), r.batches);
  ASSERT_EQ(recorder.of(Kind::progress).size(), 1u);
  expect_progress_grows_to_one(recorder);
}

TEST(PlanObserver, CancellingAfterTheKthBatchStopsThereAndThrows) {
  const Scenario s = titan("nd-48x1536", "8GB", 8);
  Recorder all;
  (void)plan_scenario(ValidScenario(s), Calibration{},
                      PlanRequest{.with_baselines = true, .search = {.observer = &all}});
  const int rows = static_cast<int>(all.of(Kind::batch).size());
  ASSERT_GT(rows, 10);
  // The first batch, one in the middle (likely inside a later strategy), and the very last one (before the
  // Pareto front).
  for (const int k : {1, rows / 2, rows}) {
    Recorder recorder(k);
    EXPECT_THROW((void)plan_scenario(ValidScenario(s), Calibration{},
                                     PlanRequest{.with_baselines = true, .search = {.observer = &recorder}}),
                 PlanCancelled)
        << k;
    // Exactly k rows were reported, cancelled() was asked once, and nothing was called after it.
    EXPECT_EQ(static_cast<int>(recorder.of(Kind::batch).size()), k);
    ASSERT_EQ(recorder.of(Kind::cancelled).size(), 1u) << k;
    EXPECT_EQ(recorder.calls.back().kind, Kind::cancelled) << k;
    // No progress of 1 was reported: the call did not succeed.
    for (const Recorder::Call& c : recorder.of(Kind::progress)) EXPECT_LT(c.fraction, 1.0) << k;
    // The rows reported so far are the ones a full run reports.
    for (std::size_t i = 0; i < static_cast<std::size_t>(k); ++i)
      EXPECT_EQ(recorder.of(Kind::batch)[i].row, all.of(Kind::batch)[i].row);
  }
}

TEST(PlanObserver, CancelledBeforeStartMakesNoOtherCall) {
  const Scenario s = titan("nd-48x1536", "8GB", 8);
  Recorder scenario_recorder(0);
  EXPECT_THROW(
      (void)plan_scenario(ValidScenario(s), Calibration{},
                          PlanRequest{.with_baselines = true, .search = {.observer = &scenario_recorder}}),
      PlanCancelled);
  ASSERT_EQ(scenario_recorder.calls.size(), 1u);
  EXPECT_EQ(scenario_recorder.calls[0].kind, Kind::cancelled);
  Recorder strategy_recorder(0);
  EXPECT_THROW((void)plan_strategy(ValidScenario(s), Calibration{}, full_space(s.training),
                                   SearchOptions{.observer = &strategy_recorder}),
               PlanCancelled);
  ASSERT_EQ(strategy_recorder.calls.size(), 1u);
  EXPECT_EQ(strategy_recorder.calls[0].kind, Kind::cancelled);
}

TEST(PlanObserver, PlanStrategyStopsAtTheNextBatchOrCompletesAfterTheLast) {
  const Scenario s = titan("nd-48x1536", "8GB", 4);
  const SearchSpace space = space_by_name("zero-2", s.training);
  const StrategyResult full = plan_strategy(ValidScenario(s), Calibration{}, space);
  const int rows = static_cast<int>(full.batches.size());
  ASSERT_GE(rows, 2);
  Recorder middle(rows - 1);
  EXPECT_THROW(
      (void)plan_strategy(ValidScenario(s), Calibration{}, space, SearchOptions{.observer = &middle}),
      PlanCancelled);
  EXPECT_EQ(static_cast<int>(middle.of(Kind::batch).size()), rows - 1);
  EXPECT_EQ(middle.calls.back().kind, Kind::cancelled);
  // A cancel that comes after the last batch finds no boundary left: the scan is complete and returned.
  Recorder last(rows);
  const StrategyResult r =
      plan_strategy(ValidScenario(s), Calibration{}, space, SearchOptions{.observer = &last});
  EXPECT_TRUE(last.of(Kind::cancelled).empty());
  EXPECT_EQ(r.batches, full.batches);
  expect_progress_grows_to_one(last);
}

TEST(PlanObserver, BatchStatusNamesAreTheJsonSpelling) {
  EXPECT_EQ(batch_status_name(BatchStatus::solved), "solved");
  EXPECT_EQ(batch_status_name(BatchStatus::pruned), "pruned");
  EXPECT_EQ(batch_status_name(BatchStatus::does_not_fit), "does-not-fit");
}

TEST(PlanObserver, AccumulationStepsPassedToTheModelPriceLikeAPatchedScenario) {
  // The planner no longer copies the scenario per batch size: pricing at explicit accumulation steps must
  // equal pricing a scenario copy whose gradient_accumulation_steps was patched.
  const Scenario s = titan("nd-48x1536", "8GB", 8);
  Scenario patched = s;
  patched.training.gradient_accumulation_steps = 4;
  const SearchSpace space = full_space(s.training);
  const PlanInstance direct = build_instance(ValidScenario(s), Calibration{}, space, TrainingStep{2, 4});
  const PlanInstance copied = build_instance(ValidScenario(patched), Calibration{}, space, 2);
  EXPECT_EQ(direct.samples_per_iteration, copied.samples_per_iteration);
  EXPECT_EQ(direct.fixed_bytes, copied.fixed_bytes);
  EXPECT_EQ(direct.problem.capacity_bytes, copied.problem.capacity_bytes);
  ASSERT_EQ(direct.problem.classes.size(), copied.problem.classes.size());
  for (std::size_t c = 0; c < direct.problem.classes.size(); ++c) {
    ASSERT_EQ(direct.problem.classes[c].size(), copied.problem.classes[c].size());
    for (std::size_t j = 0; j < direct.problem.classes[c].size(); ++j) {
      EXPECT_EQ(direct.problem.classes[c][j].seconds, copied.problem.classes[c][j].seconds);
      EXPECT_EQ(direct.problem.classes[c][j].resident_bytes, copied.problem.classes[c][j].resident_bytes);
      EXPECT_EQ(direct.problem.classes[c][j].transient_bytes, copied.problem.classes[c][j].transient_bytes);
    }
  }
  // And the accumulation really is priced: one step is cheaper than four.
  const PlanInstance one = build_instance(ValidScenario(s), Calibration{}, space, TrainingStep{2, 1});
  EXPECT_LT(one.samples_per_iteration, direct.samples_per_iteration);
  EXPECT_LT(one.problem.classes[1][0].seconds, direct.problem.classes[1][0].seconds);
}

}  // namespace
}  // namespace shardscope
