// The product-shape model (calibration.hpp: ProductShapeModel) fitted to measured products, the element-wise
// bandwidth beside it, and the held-out score of a compute fit (fit on every other product by size, priced on
// the rest).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>

#include "planner/core/error.hpp"
#include "validate/fit/calibration_fit.hpp"

namespace shardscope::fit {

namespace {

bool is_fp32(const std::string& dtype) {
  return dtype == "float32" || dtype == "fp32" || dtype == "float" || dtype == "tf32" || dtype == "float64";
}

struct ShapePoint {
  PointRef ref;
  OperatorKind kind = OperatorKind::other;
  double batch = 1, m = 0, n = 0, k = 0, flops = 0, seconds = 0, peak = 0;
  bool misaligned_rows_or_reduction = false, misaligned_any = false;
  bool misaligned(MisalignedDimensions d) const {
    return d == MisalignedDimensions::any ? misaligned_any : misaligned_rows_or_reduction;
  }
  double operand_bytes() const { return 2 * batch * (m * k + k * n + m * n); }
};

std::vector<ShapePoint> shape_points(const std::vector<Measurements>& files, const Cluster& cluster,
                                     int alignment) {
  std::vector<ShapePoint> out;
  for (const Measurements& m : files) {
    for (const GemmSample& g : m.gemms) {
      ShapePoint p;
      p.ref = {m.file, g.index};
      p.kind = g.operator_kind;
      p.batch = static_cast<double>(g.batch);
      p.m = static_cast<double>(g.m);
      p.n = static_cast<double>(g.n);
      p.k = static_cast<double>(g.k);
      p.flops = g.flops;
      p.seconds = g.time_seconds;
      p.peak =
          is_fp32(g.dtype) ? cluster.gpu.peak_flops_per_second_fp32 : cluster.gpu.peak_flops_per_second_fp16;
      p.misaligned_rows_or_reduction = g.k % alignment != 0 || g.m % alignment != 0;
      p.misaligned_any = p.misaligned_rows_or_reduction || g.n % alignment != 0;
      if (p.flops > 0 && p.seconds > 0 && p.peak > 0) out.push_back(p);
    }
  }
  return out;
}

// The fractions that best explain the points for one (half_rate_flops, bandwidth): per kind (and for the
// misaligned products) the geometric mean of rate over peak x size factor, from the points whose time is at
// least 1.2 x their operand-byte time (the others say little about the rate).
struct Candidate {
  ProductShapeModel model;
  std::map<OperatorKind, double> fraction;
  double mean_log_error = 1e300;
};

double price(const Candidate& c, const ShapePoint& p) {
  const auto it = c.fraction.find(p.kind);
  const double fraction = it != c.fraction.end() ? it->second : c.fraction.begin()->second;
  return product_shape_seconds(c.model, p.peak, fraction, p.batch, p.m, p.n, p.k);
}

Candidate candidate(const std::vector<ShapePoint>& points, double half_rate, double bandwidth, int alignment,
                    MisalignedDimensions rule) {
  Candidate c;
  c.model = {half_rate, bandwidth, 0, alignment, rule};
  std::map<OperatorKind, std::pair<double, int>> logs;  // kind -> (sum of log fractions, count)
  std::pair<double, int> misaligned{0, 0}, all{0, 0};
  for (const ShapePoint& p : points) {
    if (p.seconds < 1.2 * p.operand_bytes() / bandwidth) continue;
    const double implied = p.flops / (p.seconds * p.peak * p.flops / (p.flops + half_rate));
    auto& sum = p.misaligned(rule) ? misaligned : logs[p.kind];
    sum.first += std::log(implied);
    ++sum.second;
    if (!p.misaligned(rule)) {
      all.first += std::log(implied);
      ++all.second;
    }
  }
  if (all.second == 0) return c;
  for (const ShapePoint& p : points) {
    const auto& [sum, count] = logs[p.kind];
    c.fraction[p.kind] = std::exp((count > 0 ? sum / count : all.first / all.second));
  }
  for (const auto& [kind, f] : c.fraction)
    if (!(f > 0 && f <= 1)) return c;
  if (misaligned.second > 0)
    c.model.misaligned_fraction = std::min(1.0, std::exp(misaligned.first / misaligned.second));
  double error = 0;
  for (const ShapePoint& p : points) error += std::abs(std::log(price(c, p) / p.seconds));
  c.mean_log_error = error / static_cast<double>(points.size());
  return c;
}

// A grid over half_rate_flops (0 and 10^6..10^13 by 10^0.05), the operand bandwidth (10^9..10^14 B/s by
// 10^0.02) and which dimensions misalign (rows or reduction, or any): the candidate with the least mean
// |log(predicted / measured)|.
Candidate best_candidate(const std::vector<ShapePoint>& points, int alignment) {
  Candidate best;
  for (MisalignedDimensions rule : values<MisalignedDimensions>()) {
    for (int h = -1; h <= 140; ++h) {
      const double half_rate = h < 0 ? 0.0 : std::pow(10.0, 6 + 0.05 * h);
      for (int b = 0; b <= 250; ++b) {
        const Candidate c = candidate(points, half_rate, std::pow(10.0, 9 + 0.02 * b), alignment, rule);
        if (c.mean_log_error < best.mean_log_error - 1e-12) best = c;
      }
    }
  }
  return best;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

QuantityFit shape_quantity(const Candidate& c, const std::vector<ShapePoint>& points) {
  std::vector<double> observed, predicted;
  std::vector<PointRef> refs;
  for (const ShapePoint& p : points) {
    observed.push_back(p.seconds);
    predicted.push_back(price(c, p));
    refs.push_back(p.ref);
  }
  QuantityFit f;
  f.quantity = "product_shapes";
  f.unit = "model";
  f.value = c.model.half_rate_flops;
  f.points = describe_points(refs, "gemms");
  f.point_count = points.size();
  f.residuals = relative_residuals(observed, predicted);
  f.r_squared = r_squared_of_logs(observed, predicted);
  f.note = "half_rate_flops " + number(c.model.half_rate_flops) + ", operand_bandwidth " +
           number(c.model.operand_bytes_per_second) + " B/s, misaligned_fraction " +
           number(c.model.misaligned_fraction) + " (" +
           std::string(to_string(c.model.misaligned_dimensions)) + " not a multiple of " +
           std::to_string(c.model.alignment_elements) + "); fractions";
  for (const auto& [kind, fraction] : c.fraction)
    f.note += " " + std::string(to_string(kind)) + " " + number(fraction);
  return f;
}

}  // namespace

void fit_product_shapes(const std::vector<Measurements>& files, const Cluster& cluster,
                        const FitOptions& options, FitResult& result) {
  constexpr int kAlignment = 8;
  const std::vector<ShapePoint> points = shape_points(files, cluster, kAlignment);
  if (points.size() < std::max<std::size_t>(4, options.min_gemm_points)) {
    throw InputError(files.empty() ? std::string("<no file>") : files.front().file, 0, "product_shapes",
                     "too few GEMM points for the product-shape model: " + std::to_string(points.size()) +
                         ", need at least 4");
  }
  const Candidate best = best_candidate(points, kAlignment);
  if (best.fraction.empty()) {
    throw InputError(
        points.front().ref.file, 0, "product_shapes",
        "no half-rate size and operand bandwidth give fractions in (0, 1]: the cluster's peak FLOP/s "
        "does not describe this machine");
  }
  QuantityFit f = shape_quantity(best, points);
  if (f.r_squared && *f.r_squared < options.min_r_squared) {
    throw InputError(points.front().ref.file, 0, "product_shapes",
                     "R^2 of the logs " + number(*f.r_squared) + " is below " +
                         number(options.min_r_squared) +
                         ": the product times do not follow their shapes (points: " + f.points + ")");
  }
  for (QuantityFit& q : result.quantities) {  // the per-kind fractions and size tables it replaces
    if (q.quantity.rfind("achievable_fraction.", 0) == 0 || q.quantity.rfind("gemm_efficiency.", 0) == 0) {
      q.written = false;
      q.note = "replaced by product_shapes" + (q.note.empty() ? "" : " (" + q.note + ")");
    }
  }
  result.calibration.gemm_efficiency = {};
  for (const auto& [kind, fraction] : best.fraction)
    result.calibration.achievable_fraction[static_cast<std::size_t>(kind)] = fraction;
  result.calibration.product_shapes = best.model;
  result.quantities.push_back(f);
  // Element-wise bytes beside the products: bytes / time through the origin over the element-wise loops.
  std::vector<std::vector<double>> rows;
  std::vector<double> y, w;
  for (const Measurements& m : files) {
    for (const BandwidthSample& b : m.elementwise) {
      rows.push_back({b.bytes});
      y.push_back(b.time_seconds);
      w.push_back(1.0 / (b.time_seconds * b.time_seconds));
    }
  }
  if (rows.empty()) return;
  const double bandwidth = 1.0 / least_squares(rows, y, w)[0];
  QuantityFit e;
  e.quantity = "elementwise_bandwidth";
  e.unit = "B/s";
  e.value = bandwidth;
  e.points = std::to_string(rows.size()) + " elementwise point(s)";
  e.point_count = rows.size();
  std::vector<double> observed, predicted;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    observed.push_back(y[i]);
    predicted.push_back(rows[i][0] / bandwidth);
  }
  e.residuals = relative_residuals(observed, predicted);
  e.r_squared = r_squared(observed, predicted);
  e.note =
      "each operator's kept activation bytes, once forward and twice backward, and the optimizer's state";
  result.calibration.elementwise_bytes_per_second = bandwidth;
  result.quantities.push_back(e);
}

ProductHalves split_products(const std::vector<Measurements>& files) {
  // Every product in one list by FLOPs (then shape), alternately to the fit and to the score.
  struct Ref {
    std::size_t file, sample;
    double flops;
    std::int64_t batch, m, n, k;
  };
  std::vector<Ref> refs;
  for (std::size_t f = 0; f < files.size(); ++f)
    for (std::size_t s = 0; s < files[f].gemms.size(); ++s) {
      const GemmSample& g = files[f].gemms[s];
      refs.push_back({f, s, g.flops, g.batch, g.m, g.n, g.k});
    }
  std::stable_sort(refs.begin(), refs.end(), [](const Ref& a, const Ref& b) {
    return std::tie(a.flops, a.batch, a.m, a.n, a.k) < std::tie(b.flops, b.batch, b.m, b.n, b.k);
  });
  ProductHalves halves{files, files};
  for (Measurements& m : halves.fit) m.gemms.clear();
  for (Measurements& m : halves.score) m.gemms.clear();
  for (std::size_t i = 0; i < refs.size(); ++i)
    (i % 2 == 0 ? halves.fit : halves.score)[refs[i].file].gemms.push_back(
        files[refs[i].file].gemms[refs[i].sample]);
  return halves;
}

HoldoutScore holdout_score(const std::vector<Measurements>& files, const Cluster& cluster,
                           const FitOptions& options) {
  const ProductHalves halves = split_products(files);
  const std::vector<Measurements>& train = halves.fit;
  const std::vector<Measurements>& test = halves.score;
  FitResult fitted;
  fit_compute(train, cluster, options, fitted);
  HoldoutScore score;
  const Calibration& cal = fitted.calibration;
  std::vector<double> observed, predicted;
  double absolute_error = 0, total = 0;
  for (const Measurements& m : test) {
    for (const GemmSample& g : m.gemms) {
      const double peak =
          is_fp32(g.dtype) ? cluster.gpu.peak_flops_per_second_fp32 : cluster.gpu.peak_flops_per_second_fp16;
      const double fraction = cal.achievable_fraction[static_cast<std::size_t>(g.operator_kind)].value_or(
          cluster.gpu.achievable_fraction);
      const double seconds =
          cal.product_shapes
              ? product_shape_seconds(*cal.product_shapes, peak, fraction, static_cast<double>(g.batch),
                                      static_cast<double>(g.m), static_cast<double>(g.n),
                                      static_cast<double>(g.k))
              : g.flops / (peak * fraction * gemm_efficiency_factor(cal, g.operator_kind, g.flops));
      observed.push_back(g.time_seconds);
      predicted.push_back(seconds);
      score.errors.push_back(seconds / g.time_seconds - 1);
      absolute_error += std::abs(seconds - g.time_seconds);
      total += g.time_seconds;
    }
  }
  for (const Measurements& m : train) score.fitted_on += m.gemms.size();
  if (score.errors.empty()) return score;
  double sum = 0;
  for (double e : score.errors) sum += std::abs(e);
  score.mean_absolute_relative = sum / static_cast<double>(score.errors.size());
  score.time_weighted_relative = absolute_error / total;
  score.residuals = relative_residuals(observed, predicted);
  return score;
}

}  // namespace shardscope::fit
