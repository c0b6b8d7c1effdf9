// Compute model: FLOPs / (peak rate x achievable fraction); update time from HBM bandwidth.
#include "planner/cost/compute_model.hpp"

namespace shardscope {

double ComputeModel::flops_per_second(const Operator& op) const {
  const double peak =
      precision_ == Precision::fp32 ? gpu_.peak_flops_per_second_fp32 : gpu_.peak_flops_per_second_fp16;
  const auto& override_fraction = calibration_.achievable_fraction[static_cast<std::size_t>(op.kind)];
  return peak * override_fraction.value_or(gpu_.achievable_fraction);
}

double ComputeModel::forward_seconds(const Operator& op, double samples) const {
  return samples * op.forward_flops_per_sample / flops_per_second(op);
}

double ComputeModel::backward_seconds(const Operator& op, double samples) const {
  return samples * op.backward_flops_per_sample / flops_per_second(op);
}

double ComputeModel::update_seconds(double owned_state_bytes) const {
  return 2 * owned_state_bytes / gpu_.hbm_bytes_per_second;
}

}  // namespace shardscope
