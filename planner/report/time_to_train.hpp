// Users' units for a prediction: the iterations, wall time, GPU-hours and cost of training on N tokens.
#pragma once

#include <optional>
#include <string>

#include "planner/core/plan.hpp"

namespace shardscope {

// What the user asks: tokens to train on (> 0) and, optionally, a price per GPU-hour (>= 0).
struct TrainingBudget {
  double tokens = 0;
  std::optional<double> price_per_gpu_hour;
};

struct TimeToTrain {
  double tokens_per_iteration = 0;  // the plan's global batch in tokens
  double iterations = 0;            // whole optimizer steps: the last one is run in full
  double seconds = 0;               // iterations x the predicted iteration time
  double gpu_hours = 0;             // seconds x GPUs / 3600
  std::optional<double> cost;       // gpu_hours x price, when a price was given
};

// The most tokens a budget may name (a million times the largest corpora trained on; beyond it a typo, not a
// plan) and the highest price per GPU-hour.
inline constexpr double kMaxTrainingTokens = 1e18;
inline constexpr double kMaxPricePerGpuHour = 1e9;

// A token count as users write it ("300B", "1.5T", "1e12"), from 1 to kMaxTrainingTokens. Throws
// std::invalid_argument saying what is wrong.
double parse_training_tokens(const std::string& text);

// The training a prediction implies on `gpus` GPUs (every GPU billed for the whole run). Throws
// std::invalid_argument when the prediction has no positive iteration time or token rate.
TimeToTrain time_to_train(const PlanPrediction& predicted, int gpus, const TrainingBudget& budget);

// "12.34 days", "5.20 hours", "42.0 minutes", "31.5 s": the unit that keeps the number readable.
std::string format_wall_time(double seconds);

}  // namespace shardscope
