// The throughput's uncertainty from the runtime profile's published errors for the scenario's GPU.
#include "planner/report/uncertainty.hpp"

#include <cmath>
#include <cstdio>

#include "planner/core/units.hpp"

namespace shardscope {
namespace {

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100 * fraction);
  return text;
}

// What of the scenario lies outside the rows' model sizes and GPU counts ("" when nothing).
std::string outside_of(const Scenario& scenario, const PublishedError& e) {
  const double parameters = whole_model_parameters(scenario);
  const int gpus = physical_gpus(scenario);
  std::string out;
  if (parameters < e.min_parameters * (1 - 1e-3) || parameters > e.max_parameters * (1 + 1e-3))
    out = units::format_count(parameters) + " parameters";
  if (gpus < e.min_gpus || gpus > e.max_gpus)
    out += (out.empty() ? "" : " and ") + std::to_string(gpus) + " GPUs";
  return out;
}

}  // namespace

ThroughputUncertainty throughput_uncertainty(const Scenario& scenario, double predicted_tokens_per_second,
                                             const std::optional<CalibrationPredictionError>& calibrated) {
  ThroughputUncertainty u;
  if (!scenario.planner.calibration_file.empty()) {
    u.basis = UncertaintyBasis::calibration;
    if (calibrated) {
      u.calibrated = calibrated;
      u.low_tokens_per_second = predicted_tokens_per_second * (1 - calibrated->mape);
      u.high_tokens_per_second = predicted_tokens_per_second * (1 + calibrated->mape);
      u.pairs = calibrated->pairs;
      u.pair_sd = calibrated->pair_sd;
    }
    return u;
  }
  for (const PublishedError& e : scenario.execution.runtime.published_errors) {
    if (e.gpu != scenario.cluster.gpu.name) continue;
    u.published = e;
    u.outside = outside_of(scenario, e);
    u.basis = u.outside.empty() ? UncertaintyBasis::published : UncertaintyBasis::extrapolated;
    u.low_tokens_per_second = predicted_tokens_per_second * (1 - e.mape);
    u.high_tokens_per_second = predicted_tokens_per_second * (1 + e.mape);
    u.pairs = e.pairs;
    u.pair_sd = e.pair_sd;
    u.memory_rows = e.memory_rows;
    u.memory_mape = e.memory_mape;
  }
  return u;
}

std::string uncertainty_text(const Scenario& scenario, const ThroughputUncertainty& u) {
  const std::string runtime(to_string(scenario.execution.runtime.name));
  if (u.basis == UncertaintyBasis::calibration && u.calibrated) {
    const CalibrationPredictionError& e = *u.calibrated;
    return "calibration: " + units::format_count(u.low_tokens_per_second) + "-" +
           units::format_count(u.high_tokens_per_second) + " tokens/s; priced with " +
           scenario.planner.calibration_file + ", whose predictions of " + std::to_string(e.rows) + " " +
           e.scored_on + " were off by " + percent(e.mape) + " on average (bias " + (e.bias >= 0 ? "+" : "") +
           percent(e.bias) + ", worst " + percent(e.worst) + "); peak memory not scored";
  }
  if (u.basis == UncertaintyBasis::calibration)
    return "calibration: priced with " + scenario.planner.calibration_file +
           " (it states no prediction_error: its fit's residuals, calibrate --report, say how far)";
  if (!u.published)
    return "uncalibrated: no published measurement of " + runtime + " on " + scenario.cluster.gpu.name +
           " scored yet: the throughput rests on values not fitted for this runtime and GPU "
           "(docs/published.md)";
  const PublishedError& e = *u.published;
  std::string line = std::string(to_string(u.basis)) + ": " + units::format_count(u.low_tokens_per_second) +
                     "-" + units::format_count(u.high_tokens_per_second) + " tokens/s; " +
                     std::to_string(e.rows) + " held-out published rows under " + runtime + " on " + e.gpu +
                     " (" + units::format_count(e.min_parameters) + "-" +
                     units::format_count(e.max_parameters) + " parameters, " + std::to_string(e.min_gpus) +
                     "-" + std::to_string(e.max_gpus) + " GPUs) were off by " + percent(e.mape) +
                     " on average (bias " + (e.bias >= 0 ? "+" : "") + percent(e.bias) + ", worst " +
                     percent(e.worst) + ")";
  if (!u.outside.empty()) line += "; this scenario's " + u.outside + " lie outside them";
  line += u.memory_rows > 0 ? "; peak memory off by " + percent(u.memory_mape) + " on average on the " +
                                  std::to_string(u.memory_rows) + " of them that measured it"
                            : "; none measured memory: peak memory not scored";
  return line;
}

std::optional<double> probability_faster(const ThroughputUncertainty& u, double a, double b) {
  if (u.pairs <= 0 || !(u.pair_sd > 0) || !(a > 0) || !(b > 0)) return std::nullopt;
  return 0.5 * std::erfc(-std::log(a / b) / (u.pair_sd * std::sqrt(2.0)));
}

std::string probability_faster_text(const ThroughputUncertainty& u, double plan_samples_per_second,
                                    const std::vector<std::string>& names,
                                    const std::vector<double>& samples_per_second) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < names.size() && i < samples_per_second.size(); ++i) {
    const std::optional<double> p = probability_faster(u, plan_samples_per_second, samples_per_second[i]);
    if (!p) return "";
    char text[32];
    std::snprintf(text, sizeof text, " %.2f", *p);
    items.push_back(names[i] + text);
  }
  if (items.empty()) return "";
  char spread[64];
  std::snprintf(spread, sizeof spread, "%.1f %%", 100 * u.pair_sd);
  std::string out =
      "Probability that the plan is faster, taking the log of a predicted ratio as normal with " +
      std::string(spread) + " rms,\nthe spread over " + std::to_string(u.pairs) +
      (u.basis == UncertaintyBasis::calibration ? " pairs of the calibration's scored rows:"
                                                : " pairs of held-out rows of one published table:");
  std::string line;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (!line.empty() && line.size() + 1 + item.size() > 104) {
      out += "\n  " + line;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + item;
  }
  return out + "\n  " + line;
}

}  // namespace shardscope
