// Predicted vs measured: rows of (measured, planner, simulator) per iteration, peak memory, operator,
// collective size band, and collective kind by the compute task it follows; error summaries (MAPE, max
// error, signed bias), Spearman rank correlation of the strategies' throughputs and the strategy pairs the
// measurements order; Markdown and JSON, deterministically.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/names.hpp"

namespace shardscope::fit {

struct ComparedRow {
  std::string strategy;
  std::string item;  // operator, size band, "all-gather after forward", or "" for whole-iteration rows
  double measured = 0;
  std::optional<double> planner, simulator;
  std::size_t count = 1;  // measured tasks summed into the row
  double samples = 0;     // iteration rows: samples per iteration over all GPUs (0: not known)
  // Iteration rows: every measured iteration's seconds (empty: not in the file), and the strategy whose run
  // this row repeats when two strategies gave one plan.
  std::vector<double> iteration_samples = {};
  std::string same_plan_as = {};
};

// Two strategies' measured order and whether it is more than noise: the two-sided Mann-Whitney U test over
// their measured iterations' throughputs, and what each model says of the pair.
enum class PairVerdict { agrees, reversed, tie, none };  // none: the model gave no time
}  // namespace shardscope::fit

template <>
struct shardscope::EnumNames<shardscope::fit::PairVerdict> {
  using V = shardscope::fit::PairVerdict;
  static constexpr NameEntry<V> table[] = {
      {V::agrees, "agrees", "the model orders the pair as measured"},
      {V::reversed, "reversed", "the model orders the pair the other way"},
      {V::tie, "tie", "the model gives both the same throughput"},
      {V::none, "none", "the model gave no time for one of them"},
  };
};

namespace shardscope::fit {
struct StrategyPair {
  std::string faster, slower;  // by the measured throughputs of the iteration rows
  std::size_t faster_iterations = 0, slower_iterations = 0;
  double p_value = 1;
  bool resolved = false;  // p_value < kPairLevel
  PairVerdict planner = PairVerdict::none, simulator = PairVerdict::none;
  // With a calibration that states its pairs' spread (Comparison::pair_sd): the probability the planner's
  // prediction gives the measured order, Phi(ln(predicted faster / predicted slower rate) / pair_sd).
  std::optional<double> planner_probability;
};
constexpr double kPairLevel = 0.05;

// Relative errors (predicted - measured) / measured over the rows that have a prediction.
struct ErrorSummary {
  std::size_t points = 0;
  double mape = 0;           // mean |error|
  double max_abs_error = 0;  // largest |error|
  double bias = 0;           // mean error (positive: predictions too high)
};

struct ComparisonSection {
  std::string name;  // "iteration", "peak_memory", "operators", "collectives", "collectives_after"
  std::string unit;  // "s" or "B"
  std::vector<ComparedRow> rows;
  ErrorSummary planner, simulator;
};

struct Comparison {
  std::string scenario, measured_file, calibration;  // calibration: the file predicted with, or "scenario's"
  bool simulator_available = false;
  std::vector<ComparisonSection> sections;
  // Over the strategies' throughputs (samples per second), so strategies run at different batch sizes rank
  // by what a user gains; at one batch size this is the rank correlation of their iteration times.
  std::optional<double> spearman_planner, spearman_simulator;
  // Every pair of strategies with their own runs and measured iterations (none when the file has no
  // per-iteration times).
  std::vector<StrategyPair> pairs;
  // The predicting calibration's pairs' spread (CalibrationPredictionError::pair_sd; 0: none stated), by
  // which each pair gets the planner's probability of its measured order.
  double pair_sd = 0;
  std::vector<std::string> notes;
};

ErrorSummary summarize(const std::vector<ComparedRow>& rows, bool simulator);
// Spearman's rho with average ranks for ties; nothing for fewer than 3 pairs or no spread.
std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b);
// Pairs of rows on one setting or from one source: how many, and the root mean square over them of the
// difference of the two rows' log errors ln(predicted / measured), which is ln(predicted ratio / measured
// ratio): how far a predicted ratio between two of them strays from the measured one.
struct PairSpread {
  int pairs = 0;
  double sd = 0;
};
PairSpread pair_spread(const std::vector<double>& log_errors);
// Two sets' pairs together (no pair across the sets).
PairSpread merge_pair_spreads(const PairSpread& a, const PairSpread& b);
// The two-sided p-value of the Mann-Whitney U test that `a` and `b` come from one distribution: the normal
// approximation with tie and continuity corrections; 1 when either is empty or every value ties.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);
// Fills every section's summaries, the rank correlations and the strategy pairs (from the "iteration"
// section).
void finish_comparison(Comparison& comparison);

// The planner's throughput error on the measured iterations (the "iteration" section: one row per strategy
// that ran its own plan, the error measured / predicted seconds - 1 = predicted / measured throughput - 1)
// and the pairs of those strategies, as a calibration's prediction_error (`scored_on` says of what);
// nullopt when no iteration has a planner prediction.
std::optional<CalibrationPredictionError> iteration_prediction_error(const Comparison& comparison,
                                                                     const std::string& scored_on);

// The collective size band of a buffer (0: < 64 KiB, 1: 64 KiB - 1 MiB, 2: 1 - 16 MiB, 3: 16 - 256 MiB, 4:
// more), and its name.
int size_band(double bytes);
std::string size_band_name(int band);

std::string comparison_markdown(const Comparison& comparison);
nlohmann::ordered_json comparison_json(const Comparison& comparison);

}  // namespace shardscope::fit
