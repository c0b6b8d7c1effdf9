// Fit report text and JSON: values in the quantity's unit, relative residuals in percent, R^2 or "-".
#include "validate/fit/fit_report.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "planner/core/units.hpp"
#include "validate/fit/number_text.hpp"

namespace shardscope::fit {

namespace {

std::string value_text(const QuantityFit& q) {
  if (q.unit == "s") return units::format_duration(q.value);
  if (q.unit == "B/s") return units::format_bandwidth(q.value);
  if (q.unit == "B") return units::format_bytes(q.value);
  if (q.unit == "points") return number_text("%.0f", q.value);
  return number_text("%.4f", q.value);
}

}  // namespace

void print_fit_table(const FitResult& result, const FitOptions& options, std::ostream& out) {
  out << "Calibration fitted on " << result.cluster << " from " << result.inputs.size()
      << " measurement file(s); R^2 threshold " << number_text("%.2f", options.min_r_squared)
      << " (alpha also passes with an RMS error up to " << number_text("%.0f", 100 * options.max_alpha_rms)
      << " %)\n\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"quantity", "value", "points", "rms error", "max error", "R^2", "written"});
  for (const QuantityFit& q : result.quantities) {
    rows.push_back({q.quantity, value_text(q), std::to_string(q.point_count),
                    number_text("%.2f %%", 100 * q.residuals.rms_relative),
                    number_text("%.2f %%", 100 * q.residuals.max_relative),
                    q.r_squared ? number_text("%.4f", *q.r_squared) : "-", q.written ? "yes" : "report"});
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  for (std::size_t n = 0; n < rows.size(); ++n) {
    std::string line = " ";
    for (std::size_t i = 0; i < rows[n].size(); ++i) {
      const std::string pad(width[i] - rows[n][i].size(), ' ');
      line += " " + (i == 0 ? rows[n][i] + pad : pad + rows[n][i]);
    }
    out << line << "\n";
    if (n == 0) {
      std::size_t total = 0;
      for (std::size_t w : width) total += w + 1;
      out << "  " << std::string(total - 1, '-') << "\n";
    }
  }
  if (result.ignored_points > 0) {
    out << "\n" << result.ignored_points << " collective point(s) of one rank ignored (nothing to time)\n";
  }
}

nlohmann::ordered_json fit_report_json(const FitResult& result, const FitOptions& options) {
  nlohmann::ordered_json j;
  j["format"] = "shardscope-fit-report";
  j["version"] = 1;
  j["cluster"] = result.cluster;
  j["inputs"] = result.inputs;
  j["min_r_squared"] = options.min_r_squared;
  j["max_alpha_rms"] = options.max_alpha_rms;
  j["ignored_points"] = result.ignored_points;
  j["quantities"] = nlohmann::ordered_json::array();
  for (const QuantityFit& q : result.quantities) {
    nlohmann::ordered_json e;
    e["quantity"] = q.quantity;
    e["unit"] = q.unit;
    e["value"] = q.value;
    e["written"] = q.written;
    e["points"] = q.points;
    e["point_count"] = q.point_count;
    e["rms_relative_residual"] = q.residuals.rms_relative;
    e["max_relative_residual"] = q.residuals.max_relative;
    e["r_squared"] = q.r_squared ? nlohmann::ordered_json(*q.r_squared) : nlohmann::ordered_json(nullptr);
    if (!q.note.empty()) e["note"] = q.note;
    j["quantities"].push_back(e);
  }
  return j;
}

nlohmann::ordered_json holdout_json(const HoldoutScore& score) {
  nlohmann::ordered_json j;
  j["fitted_on"] = score.fitted_on;
  j["scored"] = score.errors.size();
  j["mean_absolute_relative_error"] = score.mean_absolute_relative;
  j["time_weighted_relative_error"] = score.time_weighted_relative;
  j["rms_relative_residual"] = score.residuals.rms_relative;
  j["max_relative_residual"] = score.residuals.max_relative;
  return j;
}

}  // namespace shardscope::fit
