// Time to train and its cost from a plan's predicted iteration: whole iterations of the plan's global batch.
#include "planner/report/time_to_train.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "planner/core/units.hpp"

namespace shardscope {

double parse_training_tokens(const std::string& text) {
  const double tokens = units::parse_count(text);
  if (!(tokens >= 1) || tokens > kMaxTrainingTokens)
    throw std::invalid_argument("expected from 1 to 1e18 tokens, got '" + text + "'");
  return tokens;
}

TimeToTrain time_to_train(const PlanPrediction& predicted, int gpus, const TrainingBudget& budget) {
  if (!(predicted.iteration_seconds > 0) || !(predicted.tokens_per_second > 0) || gpus < 1)
    throw std::invalid_argument("time to train needs a prediction with a positive iteration time and rate");
  TimeToTrain out;
  // The global batch is a whole number of tokens; the product of the two rounded values recovers it.
  out.tokens_per_iteration = std::round(predicted.tokens_per_second * predicted.iteration_seconds);
  out.iterations = std::ceil(budget.tokens / out.tokens_per_iteration);
  out.seconds = out.iterations * predicted.iteration_seconds;
  out.gpu_hours = out.seconds * static_cast<double>(gpus) / 3600.0;
  if (budget.price_per_gpu_hour) out.cost = out.gpu_hours * *budget.price_per_gpu_hour;
  return out;
}

std::string format_wall_time(double seconds) {
  char buffer[64];
  if (seconds >= 2 * 86400.0) {
    std::snprintf(buffer, sizeof buffer, "%.2f days", seconds / 86400.0);
  } else if (seconds >= 2 * 3600.0) {
    std::snprintf(buffer, sizeof buffer, "%.2f hours", seconds / 3600.0);
  } else if (seconds >= 120.0) {
    std::snprintf(buffer, sizeof buffer, "%.1f minutes", seconds / 60.0);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
  }
  return buffer;
}

}  // namespace shardscope
