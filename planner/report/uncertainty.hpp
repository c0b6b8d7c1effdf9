// How sure a plan's throughput is: the published measurements the shipped presets were scored on under the
// scenario's runtime and GPU (their held-out errors, scenarios/runtimes/*.yaml), whether the scenario lies
// inside what they covered, or that nothing calibrated it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope {

// published: inside the scored rows' model sizes and GPU counts; extrapolated: outside them; uncalibrated:
// no row scored for this runtime and GPU; calibration: priced with a calibration file (the presets'
// published errors do not apply; its own `prediction_error`, where it has one, gives the interval).
enum class UncertaintyBasis { published, extrapolated, uncalibrated, calibration };

template <>
struct EnumNames<UncertaintyBasis> {
  static constexpr NameEntry<UncertaintyBasis> table[] = {
      {UncertaintyBasis::published, "published",
       "inside the published rows this runtime and GPU were scored on"},
      {UncertaintyBasis::extrapolated, "extrapolated", "outside the model sizes or GPU counts scored"},
      {UncertaintyBasis::uncalibrated, "uncalibrated", "no published row scored for this runtime and GPU"},
      {UncertaintyBasis::calibration, "calibration", "priced with a calibration file"},
  };
};

struct ThroughputUncertainty {
  UncertaintyBasis basis = UncertaintyBasis::uncalibrated;
  std::optional<PublishedError> published;               // the scored rows (published, extrapolated)
  std::optional<CalibrationPredictionError> calibrated;  // calibration: the file's own scored rows
  std::string outside;  // extrapolated: what lies outside ("175.0 B parameters")
  double low_tokens_per_second = 0, high_tokens_per_second = 0;  // predicted x (1 -+ mean |error|)
  // The scored rows' pairs (PublishedError::pairs, CalibrationPredictionError::pairs): 0 when none.
  int pairs = 0;
  double pair_sd = 0;
  // The peak memory's: the scored rows with a memory column (PublishedError::memory_rows; a calibration
  // scores none), and their mean error. 0 rows: the memory prediction was not scored.
  int memory_rows = 0;
  double memory_mape = 0;
};

// `calibrated`: the scenario's calibration file's prediction_error (PlanReport::calibration_error).
ThroughputUncertainty throughput_uncertainty(
    const Scenario& scenario, double predicted_tokens_per_second,
    const std::optional<CalibrationPredictionError>& calibrated = std::nullopt);

// The probability that a plan predicted at `a` runs faster than one predicted at `b` (the same unit, both
// positive) on the scenario: Phi(ln(a / b) / pair_sd), taking the scored pairs' spread as a normal error on
// the log of a predicted ratio. nullopt when no pairs were scored or their spread is 0.
std::optional<double> probability_faster(const ThroughputUncertainty& u, double a, double b);

// "the plan is faster than fsdp with probability 0.93, zero-2 0.99 (...)": one line over the fitting
// baselines, or "" without scored pairs. `names` and `samples_per_second` are the baselines', in order.
std::string probability_faster_text(const ThroughputUncertainty& u, double plan_samples_per_second,
                                    const std::vector<std::string>& names,
                                    const std::vector<double>& samples_per_second);

// "within 3.9 % on average (worst 25.0 %) of 30 held-out published rows under fsdp1 on ...": one line.
std::string uncertainty_text(const Scenario& scenario, const ThroughputUncertainty& u);

}  // namespace shardscope
