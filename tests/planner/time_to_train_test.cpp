// Time to train and cost from a prediction: whole iterations of the global batch, GPU-hours over every GPU,
// and the refusals of a prediction without a rate.
#include "planner/report/time_to_train.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace shardscope {
namespace {

// 8 GPUs, 6 x 8 samples of 1,024 tokens per 1.5 s iteration: 49,152 tokens per iteration.
PlanPrediction prediction() {
  PlanPrediction p;
  p.iteration_seconds = 1.5;
  p.tokens_per_second = 49152 / 1.5;
  p.samples_per_second = 48 / 1.5;
  return p;
}

TEST(TimeToTrain, WholeIterationsOfTheGlobalBatch) {
  const TimeToTrain t = time_to_train(prediction(), 8, TrainingBudget{300e9, 2.5});
  EXPECT_EQ(t.tokens_per_iteration, 49152);
  EXPECT_EQ(t.iterations, 6103516);  // 300e9 / 49,152 = 6,103,515.6: the last iteration runs in full
  EXPECT_DOUBLE_EQ(t.seconds, 6103516 * 1.5);
  EXPECT_DOUBLE_EQ(t.gpu_hours, 6103516 * 1.5 * 8 / 3600);
  ASSERT_TRUE(t.cost.has_value());
  EXPECT_DOUBLE_EQ(*t.cost, 6103516 * 1.5 * 8 / 3600 * 2.5);
  // Exactly one global batch is one iteration; one token more is two.
  EXPECT_EQ(time_to_train(prediction(), 8, TrainingBudget{49152, {}}).iterations, 1);
  EXPECT_EQ(time_to_train(prediction(), 8, TrainingBudget{49153, {}}).iterations, 2);
  EXPECT_FALSE(time_to_train(prediction(), 8, TrainingBudget{49152, {}}).cost.has_value());
  EXPECT_EQ(*time_to_train(prediction(), 8, TrainingBudget{49152, 0.0}).cost, 0.0);
}

TEST(TimeToTrain, APredictionWithoutARateIsRefused) {
  PlanPrediction none;
  EXPECT_THROW(time_to_train(none, 8, TrainingBudget{1e9, {}}), std::invalid_argument);
  EXPECT_THROW(time_to_train(prediction(), 0, TrainingBudget{1e9, {}}), std::invalid_argument);
}

TEST(TimeToTrain, WallTimeInAReadableUnit) {
  EXPECT_EQ(format_wall_time(31.5), "31.5 s");
  EXPECT_EQ(format_wall_time(600), "10.0 minutes");
  EXPECT_EQ(format_wall_time(5 * 3600.0), "5.00 hours");
  EXPECT_EQ(format_wall_time(73.49 * 86400), "73.49 days");
}

}  // namespace
}  // namespace shardscope
