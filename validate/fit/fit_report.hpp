// The fit's report: a text table (one row per fitted quantity: value, points, residuals, R^2) and the same
// as JSON (`calibrate --report fit.json`); deterministic.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "validate/fit/calibration_fit.hpp"

namespace shardscope::fit {

void print_fit_table(const FitResult& result, const FitOptions& options, std::ostream& out);
nlohmann::ordered_json fit_report_json(const FitResult& result, const FitOptions& options);
// The held-out score (calibrate --holdout), for the report's "holdout" member.
nlohmann::ordered_json holdout_json(const HoldoutScore& score);

}  // namespace shardscope::fit
