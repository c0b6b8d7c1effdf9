// Least squares for the calibration fit (Eigen): solve a small weighted linear system, and goodness of fit.
#pragma once

#include <optional>
#include <vector>

namespace shardscope::fit {

// Minimises sum_i w_i (y_i - sum_j A_ij x_j)^2 (rows of A are the points) by a column-pivoting QR of the
// weighted system; returns x. Rows must be at least as many as columns.
std::vector<double> least_squares(const std::vector<std::vector<double>>& rows, const std::vector<double>& y,
                                  const std::vector<double>& weights);

// R^2 = 1 - SS_res / SS_tot of `predicted` against `observed`; nothing when the observed values are too
// alike for it to mean anything (fewer than 3 points, or the largest less than 5 % above the smallest).
std::optional<double> r_squared(const std::vector<double>& observed, const std::vector<double>& predicted);

// The same over the logarithms (for times spanning orders of magnitude, as a message-size sweep does).
std::optional<double> r_squared_of_logs(const std::vector<double>& observed,
                                        const std::vector<double>& predicted);

struct Residuals {
  double rms_relative = 0;  // root mean square of (predicted - observed) / observed
  double max_relative = 0;  // the largest |predicted - observed| / observed
};
Residuals relative_residuals(const std::vector<double>& observed, const std::vector<double>& predicted);

}  // namespace shardscope::fit
