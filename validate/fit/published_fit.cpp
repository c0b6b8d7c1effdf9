// Nelder-Mead over log-parameters of a runtime profile, objective over the fit rows only; the held-out rows
// are predicted after, with the fitted values, and reported apart.
#include "validate/fit/published_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "planner/core/error.hpp"
#include "planner/io/runtime_profiles.hpp"

namespace shardscope::fit {

namespace {

constexpr std::size_t kParameters = 6;
using Point = std::array<double, kParameters>;  // natural logarithms of the parameters

struct Bounds {
  const char* name;
  double low, high;
};
// Physically plausible ranges; the objective is flat along some directions (a higher half-rate size trades
// against a higher host floor on small models), so the bounds keep the fit among values a GPU and a Python
// runtime can have.
constexpr std::array<Bounds, kParameters> kBounds{{{"gemm_fraction", 0.3, 0.95},
                                                   {"gemm_half_rate_flops", 1e8, 1e11},
                                                   {"attention_forward_fraction", 0.1, 0.9},
                                                   {"attention_backward_fraction", 0.1, 0.9},
                                                   {"elementwise_fraction", 0.1, 1.0},
                                                   {"host_forward_per_operator", 1e-5, 1e-3}}};

Point clamp(Point p) {
  for (std::size_t i = 0; i < kParameters; ++i)
    p[i] = std::clamp(p[i], std::log(kBounds[i].low), std::log(kBounds[i].high));
  return p;
}

RuntimeCalibration calibration_at(const Point& p) {
  RuntimeCalibration r;
  r.gemm_fraction = std::exp(p[0]);
  r.gemm_half_rate_flops = std::exp(p[1]);
  r.attention_forward_fraction = std::exp(p[2]);
  r.attention_backward_fraction = std::exp(p[3]);
  r.elementwise_fraction = std::exp(p[4]);
  r.host_forward_seconds = std::exp(p[5]);
  r.host_backward_seconds = 2 * std::exp(p[5]);
  return r;
}

Calibration with_runtime(const RuntimeCalibration& r) {
  Calibration c;
  c.runtime = r;
  return c;
}

// The start: the first table's GPU kernels and the profile's host cost.
Point start_point(const PreparedTable& table) {
  const ValidScenario& s = table.rows.front().scenario;
  const KernelEfficiency& k = *s.cluster.gpu.kernels;
  return clamp({std::log(k.gemm_fraction), std::log(std::max(k.gemm_half_rate_flops, 1e8)),
                std::log(k.attention_forward_fraction), std::log(k.attention_backward_fraction),
                std::log(k.elementwise_fraction),
                std::log(std::max(s.execution.runtime.host_forward_seconds, 1e-5))});
}

class Objective {
 public:
  explicit Objective(const std::vector<PreparedTable>& tables) : tables_(tables) {}
  double operator()(const Point& p) {
    ++evaluations;
    const Calibration calibration = with_runtime(calibration_at(p));
    double sum = 0;
    int rows = 0;
    for (const PreparedTable& t : tables_) {
      for (const PreparedRow& row : t.rows) {
        if (row.row->part != PublishedPart::fit) continue;
        const RowPrediction r = predict_prepared(row, calibration);
        if (!r.fits) continue;
        sum +=
            std::abs(std::log(r.predicted_tokens_per_second_per_gpu / r.measured_tokens_per_second_per_gpu));
        ++rows;
      }
    }
    fit_rows = rows;
    return rows > 0 ? sum / rows : 0;
  }
  int evaluations = 0;
  int fit_rows = 0;

 private:
  const std::vector<PreparedTable>& tables_;
};

Point combine(const Point& a, const Point& b, double t) {  // a + t (b - a)
  Point out;
  for (std::size_t i = 0; i < kParameters; ++i) out[i] = a[i] + t * (b[i] - a[i]);
  return clamp(out);
}

// Nelder-Mead with the standard coefficients (reflect 1, expand 2, contract 1/2, shrink 1/2); initial
// simplex: the start and one step of ln 1.5 along each axis.
Point nelder_mead(Objective& f, const Point& start, int max_evaluations) {
  std::vector<Point> simplex{start};
  for (std::size_t i = 0; i < kParameters; ++i) {
    Point p = start;
    p[i] += std::log(1.5) * (p[i] + std::log(1.5) > std::log(kBounds[i].high) ? -1 : 1);
    simplex.push_back(clamp(p));
  }
  std::vector<double> values;
  for (const Point& p : simplex) values.push_back(f(p));
  std::vector<std::size_t> order(simplex.size());
  while (f.evaluations < max_evaluations) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    const std::size_t best = order.front(), worst = order.back(), second = order[order.size() - 2];
    if (values[worst] - values[best] < 1e-6) break;
    Point centroid{};
    for (std::size_t i : order)
      if (i != worst)
        for (std::size_t d = 0; d < kParameters; ++d) centroid[d] += simplex[i][d] / kParameters;
    const Point reflected = combine(centroid, simplex[worst], -1);
    const double fr = f(reflected);
    if (fr < values[best]) {
      const Point expanded = combine(centroid, simplex[worst], -2);
      const double fe = f(expanded);
      simplex[worst] = fe < fr ? expanded : reflected;
      values[worst] = std::min(fe, fr);
    } else if (fr < values[second]) {
      simplex[worst] = reflected;
      values[worst] = fr;
    } else {
      const Point contracted = combine(centroid, simplex[worst], 0.5);
      const double fc = f(contracted);
      if (fc < values[worst]) {
        simplex[worst] = contracted;
        values[worst] = fc;
      } else {
        for (std::size_t i : order) {
          if (i == best) continue;
          simplex[i] = combine(simplex[best], simplex[i], 0.5);
          values[i] = f(simplex[i]);
        }
      }
    }
  }
  return simplex[static_cast<std::size_t>(std::min_element(values.begin(), values.end()) - values.begin())];
}

// The start point with the products' and attention's fractions of peak scaled by exp(log_factor).
Point scaled_peak(const Point& start, double log_factor) {
  Point p = start;
  for (std::size_t i : {std::size_t{0}, std::size_t{2}, std::size_t{3}}) p[i] += log_factor;
  return p;  // unclamped: the factor's own range bounds it
}

// Golden-section search for the log-factor in [ln 0.5, ln 1.25] minimising the objective; 48 evaluations
// narrow the interval to 1e-10 of its width.
double fit_log_peak_factor(Objective& f, const Point& start) {
  constexpr double kGolden = 0.6180339887498949;
  double low = std::log(0.5), high = std::log(1.25);
  double a = high - kGolden * (high - low), b = low + kGolden * (high - low);
  double fa = f(scaled_peak(start, a)), fb = f(scaled_peak(start, b));
  for (int i = 0; i < 48; ++i) {
    if (fa <= fb) {
      high = b;
      b = a;
      fb = fa;
      a = high - kGolden * (high - low);
      fa = f(scaled_peak(start, a));
    } else {
      low = a;
      a = b;
      fa = fb;
      b = low + kGolden * (high - low);
      fb = f(scaled_peak(start, b));
    }
  }
  return fa <= fb ? a : b;
}

std::vector<PreparedTable> prepare(const std::vector<PublishedTable>& tables, const PublishedFitOptions& o) {
  std::vector<PreparedTable> out;
  for (const PublishedTable& t : tables) {
    out.push_back(prepare_table(t, o.runtime));
    const PreparedTable& p = out.back();
    const PreparedTable& first = out.front();
    const auto fail = [&](const std::string& field, const std::string& message) {
      throw InputError(t.file, 0, field, message);
    };
    if (p.rows.empty()) fail("rows", "no rows to fit or score");
    if (p.runtime_profile != first.runtime_profile)
      fail("runtime_profile", "'" + p.runtime_profile + "', but " + first.table->file + " names '" +
                                  first.runtime_profile +
                                  "'; fit one runtime profile at a time (or give --runtime)");
    const GpuSpec& gpu = p.rows.front().scenario.cluster.gpu;
    const GpuSpec& first_gpu = first.rows.front().scenario.cluster.gpu;
    if (gpu.name == first_gpu.name && gpu.peak_flops_per_second_fp16 != first_gpu.peak_flops_per_second_fp16)
      fail("cluster", "peak_fp16 " + std::to_string(gpu.peak_flops_per_second_fp16 / 1e12) + " TFLOPS, but " +
                          first.table->file + "'s " + first_gpu.name + " has " +
                          std::to_string(first_gpu.peak_flops_per_second_fp16 / 1e12) +
                          "; kernel efficiencies are fractions of one peak");
    if (p.rows.front().scenario.cluster.gpu.name != first.rows.front().scenario.cluster.gpu.name)
      fail("cluster", "GPU " + p.rows.front().scenario.cluster.gpu.name + ", but " + first.table->file +
                          " ran on " + first.rows.front().scenario.cluster.gpu.name +
                          "; kernel efficiencies are one GPU's");
    if (!p.rows.front().scenario.execution.runtime.kernel_pricing())
      fail("runtime_profile",
           "runtime ideal has no parameters to fit; give --runtime fsdp1, fsdp2 or deepspeed");
  }
  return out;
}

}  // namespace

PublishedFit fit_published(const std::vector<PublishedTable>& tables, const PublishedFitOptions& options) {
  if (tables.empty()) throw InputError("calibrate", 0, "--published", "expected at least one file");
  const std::vector<PreparedTable> prepared = prepare(tables, options);
  Objective objective(prepared);
  const Point start = start_point(prepared.front());
  objective(start);
  if (objective.fit_rows == 0)
    throw InputError(tables.front().file, 0, "rows",
                     "no row of the fit part is predicted to fit; nothing to fit");
  const bool peak = options.free == PublishedFreeParameters::peak;
  const double log_factor = peak ? fit_log_peak_factor(objective, start) : 0;
  const Point best =
      peak ? scaled_peak(start, log_factor) : nelder_mead(objective, start, options.max_evaluations);
  PublishedFit out;
  out.free = options.free;
  if (peak) {
    out.peak_factor = std::exp(log_factor);
    out.peak_flops_per_second =
        out.peak_factor * prepared.front().rows.front().scenario.cluster.gpu.peak_flops_per_second_fp16;
  }
  out.runtime = prepared.front().runtime_profile;
  out.gpu = prepared.front().rows.front().scenario.cluster.gpu.name;
  out.calibration = calibration_at(best);
  out.evaluations = objective.evaluations;
  objective(best);
  out.fit_rows = objective.fit_rows;
  for (std::size_t i = 0; i < kParameters; ++i)
    if (!peak || best[i] != start[i])
      out.parameters.push_back({kBounds[i].name, std::exp(start[i]), std::exp(best[i])});
  for (const PreparedTable& t : prepared) {
    const std::vector<Calibration> before(t.rows.size(), Calibration{});
    const std::vector<Calibration> after(t.rows.size(), with_runtime(out.calibration));
    out.before.push_back(reproduce_prepared(t, before));
    out.after.push_back(reproduce_prepared(t, after));
  }
  return out;
}

}  // namespace shardscope::fit
