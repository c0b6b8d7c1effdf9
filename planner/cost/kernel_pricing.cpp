// Compute under a framework's runtime profile: each matrix product at the GPU's GEMM efficiency for its size,
// flash attention's causal half at its own forward and backward efficiency, element-wise bytes over HBM, and
// the profile's host time per pass as a floor (a pass cannot end before the host has issued it).
#include <algorithm>
#include <string>

#include "planner/cost/compute_model.hpp"

namespace shardscope {

namespace {

bool attention_product(const GemmShape& g) { return g.role == "scores" || g.role == "values"; }

// Flash attention skips the masked half of a causal sequence's scores; its backward recomputes the scores
// and runs five products to the forward's two (2.5 x the forward's FLOPs: FlashAttention-2, Dao 2023, §3).
constexpr double kCausalShare = 0.5;
constexpr double kAttentionBackwardFlops = 2.5;

}  // namespace

ComputeModel::PassSeconds ComputeModel::kernel_pass_seconds(const Operator& op, double samples,
                                                            int slices) const {
  const double peak = peak_flops_per_second();
  const double cuts = static_cast<double>(std::max(slices, 1));
  const double gemm_rate = peak * kernels_.gemm_fraction;
  // A product of F FLOPs per call runs at gemm_rate x F / (F + half-rate FLOPs).
  const auto gemm_seconds = [&](double flops, double call_flops) {
    return flops * (call_flops + kernels_.gemm_half_rate_flops) / (call_flops * gemm_rate);
  };
  PassSeconds out;
  double product_flops = 0, attention_flops = 0;
  for (const GemmShape& g : op.forward_gemms) {
    const double flops = g.flops() * samples;  // all slices together
    product_flops += g.flops();
    if (attention_product(g)) {
      attention_flops += flops * kCausalShare;
      continue;
    }
    out.forward += gemm_seconds(flops, flops / cuts);
    out.backward += 2 * gemm_seconds(flops, flops / cuts);  // data and weight gradients, each as large
  }
  out.forward += attention_flops / (peak * kernels_.attention_forward_fraction);
  out.backward += kAttentionBackwardFlops * attention_flops / (peak * kernels_.attention_backward_fraction);
  // FLOPs outside the products (an operator given as a list has no products) at the large-GEMM rate.
  out.forward += samples * std::max(0.0, op.forward_flops_per_sample - product_flops) / gemm_rate;
  out.backward += samples * std::max(0.0, op.backward_flops_per_sample - 2 * product_flops) / gemm_rate;
  const double bandwidth = elementwise_bytes_per_second();
  const double kept = static_cast<double>(op.activation_bytes_per_sample) * samples;
  out.forward += kept / bandwidth;
  out.backward += 2 * kept / bandwidth;
  out.forward = std::max(out.forward, cuts * runtime_.host_forward_seconds);
  out.backward = std::max(out.backward, cuts * runtime_.host_backward_seconds);
  return out;
}

}  // namespace shardscope
