// Least squares with Eigen's column-pivoting Householder QR, R^2 and relative residuals.
#include "validate/fit/least_squares.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace shardscope::fit {

std::vector<double> least_squares(const std::vector<std::vector<double>>& rows, const std::vector<double>& y,
                                  const std::vector<double>& weights) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  const auto k = static_cast<Eigen::Index>(rows.empty() ? 0 : rows.front().size());
  Eigen::MatrixXd a(n, k);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = std::sqrt(weights[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < k; ++j) {
      a(i, j) = w * rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
    }
    b(i) = w * y[static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd x = a.colPivHouseholderQr().solve(b);
  return std::vector<double>(x.data(), x.data() + x.size());
}

std::optional<double> r_squared(const std::vector<double>& observed, const std::vector<double>& predicted) {
  if (observed.size() < 3) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(observed.begin(), observed.end());
  if (*lo <= 0 || *hi < 1.05 * *lo) return std::nullopt;
  double mean = 0;
  for (double v : observed) mean += v;
  mean /= static_cast<double>(observed.size());
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    ss_res += (observed[i] - predicted[i]) * (observed[i] - predicted[i]);
    ss_tot += (observed[i] - mean) * (observed[i] - mean);
  }
  return 1.0 - ss_res / ss_tot;
}

std::optional<double> r_squared_of_logs(const std::vector<double>& observed,
                                        const std::vector<double>& predicted) {
  if (!r_squared(observed, predicted)) return std::nullopt;
  std::vector<double> lo, lp;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    lo.push_back(std::log(observed[i]));
    lp.push_back(std::log(std::max(predicted[i], 1e-300)));
  }
  double mean = 0;
  for (double v : lo) mean += v;
  mean /= static_cast<double>(lo.size());
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < lo.size(); ++i) {
    ss_res += (lo[i] - lp[i]) * (lo[i] - lp[i]);
    ss_tot += (lo[i] - mean) * (lo[i] - mean);
  }
  return 1.0 - ss_res / ss_tot;
}

Residuals relative_residuals(const std::vector<double>& observed, const std::vector<double>& predicted) {
  Residuals r;
  if (observed.empty()) return r;
  double sum = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double e = (predicted[i] - observed[i]) / observed[i];
    sum += e * e;
    r.max_relative = std::max(r.max_relative, std::fabs(e));
  }
  r.rms_relative = std::sqrt(sum / static_cast<double>(observed.size()));
  return r;
}

}  // namespace shardscope::fit
