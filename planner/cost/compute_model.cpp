// Compute model: FLOPs / (peak rate x achievable fraction x product-size factor); update time from HBM
// bandwidth.
#include "planner/cost/compute_model.hpp"

#include <algorithm>

namespace shardscope {

double ComputeModel::flops_per_second(const Operator& op) const {
  const double peak =
      precision_ == Precision::fp32 ? gpu_.peak_flops_per_second_fp32 : gpu_.peak_flops_per_second_fp16;
  const auto& override_fraction = calibration_.achievable_fraction[static_cast<std::size_t>(op.kind)];
  return peak * override_fraction.value_or(gpu_.achievable_fraction);
}

double ComputeModel::size_factor(const Operator& op, double samples, int slices) const {
  if (calibration_.gemm_efficiency[static_cast<std::size_t>(op.kind)].empty() || op.forward_gemms.empty()) {
    return 1.0;
  }
  double product_flops = 0, priced_flops = 0;  // per sample; priced = FLOPs / factor
  for (const GemmShape& g : op.forward_gemms) {
    const double flops = g.flops();
    // One call's FLOPs: the samples stack into its rows (or its batch), a slice keeps 1/slices of its
    // columns.
    const double call_flops = flops * samples / static_cast<double>(std::max(slices, 1));
    product_flops += flops;
    priced_flops += flops / gemm_efficiency_factor(calibration_, op.kind, call_flops);
  }
  const double other = std::max(0.0, op.forward_flops_per_sample - product_flops);
  const double total = other + product_flops;
  return total > 0 ? total / (other + priced_flops) : 1.0;
}

double ComputeModel::forward_seconds(const Operator& op, double samples, int slices) const {
  return pass_seconds(op, samples, slices).forward;
}

double ComputeModel::backward_seconds(const Operator& op, double samples, int slices) const {
  return pass_seconds(op, samples, slices).backward;
}

ComputeModel::PassSeconds ComputeModel::pass_seconds(const Operator& op, double samples, int slices) const {
  const double rate = flops_per_second(op) * size_factor(op, samples, slices);
  return {samples * op.forward_flops_per_sample / rate, samples * op.backward_flops_per_sample / rate};
}

double ComputeModel::update_seconds(double owned_state_bytes) const {
  return 2 * owned_state_bytes / gpu_.hbm_bytes_per_second;
}

}  // namespace shardscope
