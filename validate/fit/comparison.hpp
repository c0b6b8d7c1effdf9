// Predicted vs measured: rows of (measured, planner, simulator) per iteration, peak memory, operator and
// collective size band; error summaries (MAPE, max error, signed bias) and Spearman rank correlation of the
// strategies' throughputs; rendered as Markdown and JSON, deterministically.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::fit {

struct ComparedRow {
  std::string strategy;
  std::string item;  // operator, size band, or "" for whole-iteration rows
  double measured = 0;
  std::optional<double> planner, simulator;
  std::size_t count = 1;  // measured tasks summed into the row
  double samples = 0;     // iteration rows: samples per iteration over all GPUs (0: not known)
};

// Relative errors (predicted - measured) / measured over the rows that have a prediction.
struct ErrorSummary {
  std::size_t points = 0;
  double mape = 0;           // mean |error|
  double max_abs_error = 0;  // largest |error|
  double bias = 0;           // mean error (positive: predictions too high)
};

struct ComparisonSection {
  std::string name;  // "iteration", "peak_memory", "operators", "collectives"
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
  std::vector<std::string> notes;
};

ErrorSummary summarize(const std::vector<ComparedRow>& rows, bool simulator);
// Spearman's rho with average ranks for ties; nothing for fewer than 3 pairs or no spread.
std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b);
// Fills every section's summaries and the rank correlations (from the "iteration" section).
void finish_comparison(Comparison& comparison);

// The collective size band of a buffer (0: < 64 KiB, 1: 64 KiB - 1 MiB, 2: 1 - 16 MiB, 3: 16 - 256 MiB, 4:
// more), and its name.
int size_band(double bytes);
std::string size_band_name(int band);

std::string comparison_markdown(const Comparison& comparison);
nlohmann::ordered_json comparison_json(const Comparison& comparison);

}  // namespace shardscope::fit
