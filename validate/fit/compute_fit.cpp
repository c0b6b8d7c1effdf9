// Compute-side fit: achievable fraction of peak FLOP/s per operator kind (and, where it matters, a factor by
// matrix-product size), the overlap slowdown, the runtime reserve, and the memory and copy bandwidths
// (reported: they are cluster fields, not calibration fields).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "validate/fit/calibration_fit.hpp"

namespace shardscope::fit {

namespace {

std::string number(double v) { return units::format_general(v, 4); }

// A fraction next to its bound (0, 1], with as many digits as it takes to show which side it lies: 1.00003
// is not printed as the "1" it would be with four.
std::string fraction_text(double v) {
  char buffer[40];
  for (int digits = 4; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
    const double shown = std::strtod(buffer, nullptr);
    if ((shown > 1) == (v > 1) && (shown > 0) == (v > 0)) break;
  }
  return buffer;
}

bool is_fp32(const std::string& dtype) {
  return dtype == "float32" || dtype == "fp32" || dtype == "float" || dtype == "tf32" || dtype == "float64";
}

struct GemmPoint {
  PointRef ref;
  double flops = 0, time_seconds = 0, peak = 0;
  double factor = 1;  // the size table's factor at this product's FLOPs (1 until fitted)
  double predicted(double fraction) const { return flops / (peak * fraction * factor); }
};

// t = flops / (peak x fraction x factor): one coefficient 1 / fraction, least squares on absolute time (the
// large GEMMs that dominate an iteration weigh most).
double fraction_of(const std::vector<GemmPoint>& points) {
  std::vector<std::vector<double>> rows;
  std::vector<double> y, w;
  for (const GemmPoint& p : points) {
    rows.push_back({p.flops / (p.peak * p.factor)});
    y.push_back(p.time_seconds);
    w.push_back(1.0);
  }
  return 1.0 / least_squares(rows, y, w)[0];
}

QuantityFit gemm_quantity(const std::string& name, const std::vector<GemmPoint>& points, double fraction) {
  std::vector<double> observed, predicted;
  std::vector<PointRef> refs;
  for (const GemmPoint& p : points) {
    observed.push_back(p.time_seconds);
    predicted.push_back(p.predicted(fraction));
    refs.push_back(p.ref);
  }
  QuantityFit f;
  f.quantity = name;
  f.unit = "fraction";
  f.value = fraction;
  f.points = describe_points(refs, "gemms");
  f.point_count = points.size();
  f.residuals = relative_residuals(observed, predicted);
  f.r_squared = r_squared(observed, predicted);
  return f;
}

// A product-size table "matters" when one fraction per kind leaves one of its products further off than this.
constexpr double kSizeTableThreshold = 0.05;

// One kind's size table and fraction with it: alternately, each measured product size's factor is the
// geometric mean of the rates its products reached over the kind's fitted rate (scaled so the best size is
// 1), and the fraction is refitted with the factors divided out. A few rounds settle both.
std::vector<std::pair<double, double>> fit_size_table(OperatorKind kind, std::vector<GemmPoint>& points,
                                                      double& fraction) {
  Calibration table_only;
  for (int round = 0; round < 6; ++round) {
    std::map<double, std::pair<double, int>> log_ratios;  // product FLOPs -> (sum of log rate ratios, count)
    for (const GemmPoint& p : points) {
      auto& [sum, count] = log_ratios[p.flops];
      sum += std::log(p.flops / (p.peak * fraction * p.time_seconds));
      ++count;
    }
    double best = 0;
    std::vector<std::pair<double, double>> table;
    for (const auto& [flops, sum_count] : log_ratios) {
      table.emplace_back(flops, std::exp(sum_count.first / sum_count.second));
      best = std::max(best, table.back().second);
    }
    for (auto& row : table) row.second /= best;
    table_only.gemm_efficiency[static_cast<std::size_t>(kind)] = table;
    for (GemmPoint& p : points) p.factor = gemm_efficiency_factor(table_only, kind, p.flops);
    fraction = fraction_of(points);
  }
  return table_only.gemm_efficiency[static_cast<std::size_t>(kind)];
}

Residuals residuals_of(const std::vector<GemmPoint>& points, double fraction) {
  std::vector<double> observed, predicted;
  for (const GemmPoint& p : points) {
    observed.push_back(p.time_seconds);
    predicted.push_back(p.predicted(fraction));
  }
  return relative_residuals(observed, predicted);
}

// One kind's size table, written where it matters: one fraction leaves some product more than 5 % off, the
// kind has at least two product sizes, the table lowers the rms error and the fraction stays in (0, 1].
// Reported when the kind has two sizes; `fraction` and the points' factors become the table's when written.
void fit_gemm_sizes(OperatorKind kind, std::vector<GemmPoint>& points, double& fraction, FitResult& result) {
  std::set<double> sizes;
  for (const GemmPoint& p : points) sizes.insert(p.flops);
  if (sizes.size() < 2) return;
  const Residuals kind_only = residuals_of(points, fraction);
  std::vector<GemmPoint> sized = points;
  double sized_fraction = fraction;
  const std::vector<std::pair<double, double>> table = fit_size_table(kind, sized, sized_fraction);
  QuantityFit f = gemm_quantity("gemm_efficiency." + std::string(to_string(kind)), sized, sized_fraction);
  f.unit = "points";
  f.value = static_cast<double>(table.size());
  const std::string before = "one fraction: rms " + number(100 * kind_only.rms_relative) + " %, largest " +
                             number(100 * kind_only.max_relative) + " %";
  const bool fraction_valid = sized_fraction > 0 && sized_fraction <= 1.0;
  f.written = kind_only.max_relative > kSizeTableThreshold &&
              f.residuals.rms_relative < kind_only.rms_relative && fraction_valid;
  if (f.written) {
    f.note = "a factor per product size on the kind's fraction (" + before + ")";
    points = std::move(sized);
    fraction = sized_fraction;
    result.calibration.gemm_efficiency[static_cast<std::size_t>(kind)] = table;
  } else if (!fraction_valid) {
    f.note = "not written: the fraction at the best size would be " + fraction_text(sized_fraction) +
             ", outside (0, 1] (" + before + ")";
  } else {
    f.note = "not written: " + before + " (no product beyond " + number(100 * kSizeTableThreshold) +
             " %, or no better with it)";
  }
  result.quantities.push_back(f);
}

// " (points: m.json: gemms[0-5])", for a refusal.
std::string where(const std::vector<GemmPoint>& points) {
  std::vector<PointRef> refs;
  for (const GemmPoint& p : points) refs.push_back(p.ref);
  return " (points: " + describe_points(refs, "gemms") + ")";
}

double fastest_rate(const std::vector<GemmPoint>& points) {
  double best = 0;
  for (const GemmPoint& p : points) best = std::max(best, p.flops / p.time_seconds);
  return best;
}

void check_fraction(const std::string& name, double fraction, const std::vector<GemmPoint>& points,
                    const FitOptions& options, const QuantityFit& f) {
  if (!(fraction > 0) || fraction > 1.0) {
    throw InputError(points.front().ref.file, 0, name,
                     "fitted fraction " + fraction_text(fraction) +
                         " of the cluster's peak is outside (0, 1]: the cluster's peak FLOP/s (" +
                         number(points.front().peak) + ") does not describe this machine, whose fastest " +
                         "product ran at " + number(fastest_rate(points)) + " FLOP/s" + where(points));
  }
  // With product shapes the kind's one rate is only reported: shapes explain what FLOPs alone do not.
  if (f.r_squared && *f.r_squared < options.min_r_squared && !options.product_shapes) {
    throw InputError(points.front().ref.file, 0, name,
                     "R^2 " + number(*f.r_squared) + " is below " + number(options.min_r_squared) +
                         ": the GEMM times are not proportional to their FLOPs" + where(points) +
                         " (calibrate --product-shapes prices each product by its shape)");
  }
}

void fit_gemms(const std::vector<Measurements>& files, const Cluster& cluster, const FitOptions& options,
               FitResult& result) {
  std::map<OperatorKind, std::vector<GemmPoint>> by_kind;
  for (const Measurements& m : files) {
    for (const GemmSample& g : m.gemms) {
      const double peak =
          is_fp32(g.dtype) ? cluster.gpu.peak_flops_per_second_fp32 : cluster.gpu.peak_flops_per_second_fp16;
      if (!(peak > 0)) {
        throw InputError(m.file, 0, "gemms[" + std::to_string(g.index) + "].dtype",
                         "the cluster " + cluster.name + " gives no peak FLOP/s for " + g.dtype);
      }
      by_kind[g.operator_kind].push_back({{m.file, g.index}, g.flops, g.time_seconds, peak});
    }
  }
  // Per kind: one fraction (refused as before when it cannot describe the points), then the size table where
  // it matters, reported after the fraction it was fitted with.
  for (auto& [kind, points] : by_kind) {
    const std::string name = std::string("achievable_fraction.") + to_string(kind);
    if (points.size() < options.min_gemm_points) {
      throw InputError(points.front().ref.file, 0, name,
                       "too few GEMM points: " + std::to_string(points.size()) + ", need at least " +
                           std::to_string(options.min_gemm_points) + where(points));
    }
    double fraction = fraction_of(points);
    check_fraction(name, fraction, points, options, gemm_quantity(name, points, fraction));
    const std::size_t fraction_at = result.quantities.size();
    fit_gemm_sizes(kind, points, fraction, result);
    QuantityFit f = gemm_quantity(name, points, fraction);
    check_fraction(name, fraction, points, options, f);
    result.calibration.achievable_fraction[static_cast<std::size_t>(kind)] = fraction;
    result.quantities.insert(result.quantities.begin() + static_cast<std::ptrdiff_t>(fraction_at), f);
  }
}

void fit_overlap(const std::vector<Measurements>& files, const FitOptions& options, FitResult& result) {
  // Together the two streams take max(alone) + slowdown x min(alone) (planner/cost/topology_cost.cpp).
  std::vector<std::vector<double>> rows;
  std::vector<double> y, w, observed;
  std::vector<double> longer, shorter;
  std::vector<PointRef> refs;
  std::string first_file;
  for (const Measurements& m : files) {
    for (const OverlapSample& o : m.overlap) {
      const double lo = std::min(o.compute_alone_seconds, o.comm_alone_seconds);
      const double hi = std::max(o.compute_alone_seconds, o.comm_alone_seconds);
      const double together = std::max(o.compute_with_comm_seconds, o.comm_with_compute_seconds);
      rows.push_back({lo});
      y.push_back(together - hi);
      w.push_back(1.0);
      observed.push_back(together);
      longer.push_back(hi);
      shorter.push_back(lo);
      refs.push_back({m.file, o.index});
      if (first_file.empty()) first_file = m.file;
    }
  }
  if (rows.empty()) return;
  double slowdown = least_squares(rows, y, w)[0];
  const std::string where = " (points: " + describe_points(refs, "overlap") + ")";
  if (slowdown < -options.max_negative_overlap) {
    throw InputError(first_file, 0, "overlap_slowdown",
                     "the streams ran faster together than apart (slowdown " + number(slowdown) +
                         "): the points are inconsistent" + where);
  }
  if (slowdown > 10.0) {
    throw InputError(first_file, 0, "overlap_slowdown",
                     "slowdown " + number(slowdown) + " is above 10 (the calibration's limit)" + where);
  }
  QuantityFit f;
  f.note = slowdown < 0 ? "fitted " + number(slowdown) + ", within noise of 0: written as 0" : "";
  slowdown = std::max(0.0, slowdown);
  std::vector<double> predicted;
  for (std::size_t i = 0; i < observed.size(); ++i) predicted.push_back(longer[i] + slowdown * shorter[i]);
  f.quantity = "overlap_slowdown";
  f.unit = "fraction";
  f.value = slowdown;
  f.points = describe_points(refs, "overlap");
  f.point_count = refs.size();
  f.residuals = relative_residuals(observed, predicted);
  f.r_squared = r_squared(observed, predicted);
  result.calibration.overlap_slowdown = slowdown;
  result.quantities.push_back(f);
}

void fit_reserve(const std::vector<Measurements>& files, FitResult& result) {
  std::vector<PointRef> refs;
  double reserve = -1;
  for (const Measurements& m : files) {
    if (!m.reserve_bytes) continue;
    reserve = std::max(reserve, *m.reserve_bytes);
    refs.push_back({m.file, 0});
  }
  if (reserve < 0) return;
  QuantityFit f;
  f.quantity = "runtime_reserve";
  f.unit = "B";
  f.value = std::round(reserve);
  f.points = "reserve_bytes of " + std::to_string(refs.size()) + " file(s)";
  f.point_count = refs.size();
  f.note = "the largest measured fixed overhead";
  result.calibration.runtime_reserve_bytes = f.value;
  result.quantities.push_back(f);
}

// Reported only: bytes / time through the origin per kind (the cluster's gpu.hbm_bandwidth and PCIe rates).
void report_bandwidths(const std::vector<Measurements>& files, FitResult& result) {
  std::map<std::string, std::vector<std::pair<double, double>>> by_kind;
  for (const Measurements& m : files) {
    for (const BandwidthSample& b : m.elementwise)
      by_kind["elementwise"].emplace_back(b.bytes, b.time_seconds);
    for (const BandwidthSample& b : m.copies)
      by_kind["copies." + b.kind].emplace_back(b.bytes, b.time_seconds);
  }
  for (const auto& [kind, points] : by_kind) {
    std::vector<std::vector<double>> rows;
    std::vector<double> y, w, observed, predicted;
    for (const auto& [bytes, t] : points) {
      rows.push_back({bytes});
      y.push_back(t);
      w.push_back(1.0 / (t * t));
    }
    const double bandwidth = 1.0 / least_squares(rows, y, w)[0];
    for (const auto& [bytes, t] : points) {
      observed.push_back(t);
      predicted.push_back(bytes / bandwidth);
    }
    QuantityFit f;
    f.quantity = "bandwidth." + kind;
    f.unit = "B/s";
    f.value = bandwidth;
    f.points = std::to_string(points.size()) + " " + kind + " point(s)";
    f.point_count = points.size();
    f.residuals = relative_residuals(observed, predicted);
    f.r_squared = r_squared(observed, predicted);
    f.written = false;
    f.note = "a cluster field (gpu.hbm_bandwidth for elementwise), not a calibration field";
    result.quantities.push_back(f);
  }
}

// Products of no named kind (a profiler trace's): their fraction is every kind's, as the planner prices
// attention, MLP and head products (with product shapes the kinds differ by their shapes alone).
void spread_unnamed_kind(FitResult& result) {
  auto& f = result.calibration.achievable_fraction;
  const std::optional<double> other = f[static_cast<std::size_t>(OperatorKind::other)];
  if (!other) return;
  for (OperatorKind k : values<OperatorKind>())
    if (k != OperatorKind::other && f[static_cast<std::size_t>(k)]) return;
  for (OperatorKind k : values<OperatorKind>()) f[static_cast<std::size_t>(k)] = other;
  for (QuantityFit& q : result.quantities)
    if (q.quantity == "achievable_fraction.other" || q.quantity == "product_shapes")
      q.note += std::string(q.note.empty() ? "" : "; ") +
                "the points name no operator kind: written for every kind";
}

}  // namespace

void fit_compute(const std::vector<Measurements>& files, const Cluster& cluster, const FitOptions& options,
                 FitResult& result) {
  fit_gemms(files, cluster, options, result);
  if (options.product_shapes) fit_product_shapes(files, cluster, options, result);
  spread_unnamed_kind(result);
  fit_overlap(files, options, result);
  fit_reserve(files, result);
  report_bandwidths(files, result);
}

}  // namespace shardscope::fit
