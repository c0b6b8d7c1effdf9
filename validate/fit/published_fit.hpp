// Fitting a runtime profile's free parameters (host cost per operator pass, the GPU's kernel efficiencies)
// to the `fit` rows of published measurements, and scoring the result on the held-out rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/names.hpp"
#include "validate/fit/reproduce.hpp"

namespace shardscope {
namespace fit {

// What the fit may change: the GPU's five kernel efficiencies and the profile's host time, or only the GPU's
// effective peak (one factor on the products' and attention's fractions of peak: a card whose clock under
// its power limit is not known; element-wise work, bound by HBM, and the host time stay as they are).
enum class PublishedFreeParameters { kernels, peak };

}  // namespace fit

template <>
struct EnumNames<fit::PublishedFreeParameters> {
  static constexpr NameEntry<fit::PublishedFreeParameters> table[] = {
      {fit::PublishedFreeParameters::kernels, "kernels", "the five kernel efficiencies and the host time"},
      {fit::PublishedFreeParameters::peak, "peak", "one factor on the GPU's peak (products and attention)"},
  };
};

namespace fit {

struct PublishedFitOptions {
  std::optional<RuntimeName> runtime;  // nullopt: each table's runtime_profile (all must name the same)
  PublishedFreeParameters free = PublishedFreeParameters::kernels;
  int max_evaluations = 600;  // Nelder-Mead evaluations of the objective (kernels)
};

// One fitted parameter: its value before (the profile's or the preset's) and after.
struct FittedParameter {
  std::string name;  // the calibration file's key under `runtime:`
  double start = 0, fitted = 0;
};

struct PublishedFit {
  std::string runtime;  // the profile fitted
  std::string gpu;      // the GPU every table ran on
  std::vector<FittedParameter> parameters;
  PublishedFreeParameters free = PublishedFreeParameters::kernels;
  double peak_factor = 1;  // with free = peak: the fitted effective peak over the cluster's peak_fp16
  double peak_flops_per_second = 0;  // with free = peak: the cluster's peak_fp16 times peak_factor
  RuntimeCalibration calibration;    // the fitted values, as a calibration's `runtime:` section
  int evaluations = 0;
  int fit_rows = 0;  // rows the objective covered (fit part, predicted to fit)
  // Every table predicted with the start values and with the fitted ones (fit and held-out parts apart).
  std::vector<SourceReproduction> before, after;
};

// Minimises the mean |ln(predicted / measured)| tokens/s per GPU over the tables' `fit` rows (held-out rows
// never enter it) by Nelder-Mead over the logarithms of: gemm_fraction, gemm_half_rate_flops,
// attention_forward_fraction, attention_backward_fraction, elementwise_fraction and
// host_forward_per_operator (host_backward_per_operator tied at twice it: a backward issues about twice the
// forward's kernels). With options.free = peak, a golden-section search over one factor in [0.5, 1.25] on
// gemm_fraction and both attention fractions (the rest at their start values). Throws InputError when the
// tables ran on different GPUs or name different runtime profiles, when the profile is ideal (nothing to
// fit), or when no fit row is predicted to fit.
PublishedFit fit_published(const std::vector<PublishedTable>& tables,
                           const PublishedFitOptions& options = {});

}  // namespace fit
}  // namespace shardscope
