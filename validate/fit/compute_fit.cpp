// Compute-side fit: achievable fraction of peak FLOP/s per operator kind (and, reported, per GEMM size band),
// the overlap slowdown, the runtime reserve, and the memory and copy bandwidths (reported: they are cluster
// fields, not calibration fields).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "planner/core/error.hpp"
#include "validate/fit/calibration_fit.hpp"

namespace shardscope::fit {

namespace {

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

bool is_fp32(const std::string& dtype) {
  return dtype == "float32" || dtype == "fp32" || dtype == "float" || dtype == "tf32" || dtype == "float64";
}

struct GemmPoint {
  PointRef ref;
  double flops = 0, time_seconds = 0, peak = 0;
};

// t = flops / (peak x fraction): one coefficient 1 / fraction, least squares on absolute time (the large
// GEMMs that dominate an iteration weigh most).
double fraction_of(const std::vector<GemmPoint>& points) {
  std::vector<std::vector<double>> rows;
  std::vector<double> y, w;
  for (const GemmPoint& p : points) {
    rows.push_back({p.flops / p.peak});
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
    predicted.push_back(p.flops / (p.peak * fraction));
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

// GEMM size bands for the report (the fraction grows with size: small GEMMs lose to wave quantization).
constexpr double kBandEdges[] = {1e9, 1e11};
std::string band_name(double flops) {
  if (flops < kBandEdges[0]) return "< 1 GFLOP";
  if (flops < kBandEdges[1]) return "1-100 GFLOP";
  return ">= 100 GFLOP";
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
  for (const auto& [kind, points] : by_kind) {
    const std::string name = std::string("achievable_fraction.") + to_string(kind);
    std::vector<PointRef> refs;
    for (const GemmPoint& p : points) refs.push_back(p.ref);
    const std::string where = " (points: " + describe_points(refs, "gemms") + ")";
    if (points.size() < options.min_gemm_points) {
      throw InputError(points.front().ref.file, 0, name,
                       "too few GEMM points: " + std::to_string(points.size()) + ", need at least " +
                           std::to_string(options.min_gemm_points) + where);
    }
    const double fraction = fraction_of(points);
    if (!(fraction > 0) || fraction > 1.0) {
      throw InputError(points.front().ref.file, 0, name,
                       "fitted fraction " + number(fraction) +
                           " of the cluster's peak is outside (0, 1]: the cluster's peak FLOP/s does not "
                           "describe this machine" +
                           where);
    }
    QuantityFit f = gemm_quantity(name, points, fraction);
    if (f.r_squared && *f.r_squared < options.min_r_squared) {
      throw InputError(points.front().ref.file, 0, name,
                       "R^2 " + number(*f.r_squared) + " is below " + number(options.min_r_squared) +
                           ": the GEMM times are not proportional to their FLOPs" + where);
    }
    result.calibration.achievable_fraction[static_cast<std::size_t>(kind)] = fraction;
    result.quantities.push_back(f);
    std::map<std::string, std::vector<GemmPoint>> bands;
    for (const GemmPoint& p : points) bands[band_name(p.flops)].push_back(p);
    if (bands.size() < 2) continue;
    for (const auto& [band, band_points] : bands) {
      QuantityFit b = gemm_quantity(name + " [" + band + "]", band_points, fraction_of(band_points));
      b.written = false;
      b.note = "by GEMM size; the calibration keeps one fraction per kind";
      result.quantities.push_back(b);
    }
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

}  // namespace

void fit_compute(const std::vector<Measurements>& files, const Cluster& cluster, const FitOptions& options,
                 FitResult& result) {
  fit_gemms(files, cluster, options, result);
  fit_overlap(files, options, result);
  fit_reserve(files, result);
  report_bandwidths(files, result);
}

}  // namespace shardscope::fit
