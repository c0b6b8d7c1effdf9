// Calibration lookups: the bandwidth efficiency factor of one message size (log-linear between points), by
// the default table or a link class's own, a class's factor per collective kind, and the rate factor of one
// matrix product by its FLOPs, and a product's time by its shape.
#include "planner/core/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace shardscope {

namespace {

double factor_of(const std::vector<std::pair<double, double>>& table, double size) {
  if (table.empty()) return 1.0;
  if (size <= table.front().first) return table.front().second;
  if (size >= table.back().first) return table.back().second;
  for (std::size_t i = 1; i < table.size(); ++i) {
    if (size <= table[i].first) {
      const double x0 = std::log(table[i - 1].first), x1 = std::log(table[i].first);
      const double w = (std::log(size) - x0) / (x1 - x0);
      return table[i - 1].second + w * (table[i].second - table[i - 1].second);
    }
  }
  return table.back().second;
}

}  // namespace

double message_efficiency_factor(const Calibration& calibration, double message_bytes) {
  return factor_of(calibration.message_efficiency, message_bytes);
}

double message_efficiency_factor(const Calibration& calibration, LinkClass link_class, double message_bytes) {
  const auto& own = calibration.link_message_efficiency[static_cast<std::size_t>(link_class)];
  return factor_of(own.empty() ? calibration.message_efficiency : own, message_bytes);
}

double gemm_efficiency_factor(const Calibration& calibration, OperatorKind kind, double product_flops) {
  return factor_of(calibration.gemm_efficiency[static_cast<std::size_t>(kind)], product_flops);
}

double product_shape_seconds(const ProductShapeModel& model, double peak_flops_per_second, double fraction,
                             double batch, double m, double n, double k) {
  const double flops = 2 * batch * m * n * k;
  if (!(flops > 0)) return 0;
  const auto align = static_cast<std::int64_t>(std::max(1, model.alignment_elements));
  const auto off = [align](double d) { return static_cast<std::int64_t>(std::llround(d)) % align != 0; };
  const bool misaligned =
      model.misaligned_fraction > 0 &&
      (off(m) || off(k) || (model.misaligned_dimensions == MisalignedDimensions::any && off(n)));
  const double size = flops / (flops + model.half_rate_flops);
  const double rate = peak_flops_per_second * (misaligned ? model.misaligned_fraction : fraction) * size;
  const double operand_bytes = 2 * batch * (m * k + k * n + m * n);
  return std::max(flops / rate, operand_bytes / model.operand_bytes_per_second);
}

double collective_efficiency_factor(const Calibration& calibration, LinkClass link_class,
                                    CollectiveKind kind) {
  const auto& factor =
      calibration.collective_efficiency[static_cast<std::size_t>(link_class)][static_cast<std::size_t>(kind)];
  return factor.value_or(1.0);
}

KernelProductSource kernel_product_source(const Calibration& calibration) {
  if (calibration.runtime.gemm_fraction || calibration.runtime.gemm_half_rate_flops)
    return KernelProductSource::runtime_fit;
  if (calibration.product_shapes) return KernelProductSource::product_shapes;
  const bool any_fraction =
      std::any_of(calibration.achievable_fraction.begin(), calibration.achievable_fraction.end(),
                  [](const std::optional<double>& f) { return f.has_value(); });
  const bool any_table = std::any_of(calibration.gemm_efficiency.begin(), calibration.gemm_efficiency.end(),
                                     [](const auto& table) { return !table.empty(); });
  return any_fraction || any_table ? KernelProductSource::kind_fits : KernelProductSource::gpu_kernels;
}

KernelEfficiency effective_kernels(const KernelEfficiency& preset, const RuntimeCalibration& calibration) {
  KernelEfficiency k = preset;
  k.gemm_fraction = calibration.gemm_fraction.value_or(k.gemm_fraction);
  k.gemm_half_rate_flops = calibration.gemm_half_rate_flops.value_or(k.gemm_half_rate_flops);
  k.attention_forward_fraction =
      calibration.attention_forward_fraction.value_or(k.attention_forward_fraction);
  k.attention_backward_fraction =
      calibration.attention_backward_fraction.value_or(k.attention_backward_fraction);
  k.elementwise_fraction = calibration.elementwise_fraction.value_or(k.elementwise_fraction);
  return k;
}

RuntimeProfile effective_runtime(const RuntimeProfile& profile, const RuntimeCalibration& calibration) {
  RuntimeProfile p = profile;
  p.host_forward_seconds = calibration.host_forward_seconds.value_or(p.host_forward_seconds);
  p.host_backward_seconds = calibration.host_backward_seconds.value_or(p.host_backward_seconds);
  return p;
}

}  // namespace shardscope
