// Compute under a framework's runtime profile: each matrix product at the GEMM efficiency for its size (the
// GPU's, or a calibration's measured product model: KernelProductSource), flash attention's causal half at
// its own forward and backward efficiency, element-wise bytes over HBM, and the profile's host time per pass
// as a floor (a pass cannot end before the host has issued it); compiled, the element-wise kernels fused;
// with float8, the blocks' linear products in fp8 with their casts.
#include <algorithm>
#include <string>

#include "planner/cost/compute_model.hpp"

namespace shardscope {

namespace {

bool attention_product(const GemmShape& g) { return g.role == "scores" || g.role == "values"; }

// The products torchao's float8 training converts: the blocks' linear layers. The head stays bf16 (torchtitan
// leaves the output projection out of the conversion), as do attention's own products (SDPA) and MoE's
// router and grouped experts (not nn.Linear modules).
bool float8_product(const GemmShape& g) {
  return g.role == "qkv" || g.role == "out" || g.role == "up" || g.role == "gate" || g.role == "down";
}

// Dynamic tensorwise scaling (torchao) casts each operand of a float8 product: an amax pass (2 bytes read per
// bf16 element) and the cast (2 read, 1 written). The forward casts the input and the weight; the backward
// casts the output's gradient and again the input and weight, transposed for the gradients' products.
// Delayed scaling (TransformerEngine) takes its scales from an amax history and fuses the casts into the
// neighbouring kernels (LayerNorm and Linear, cast and transpose): nothing priced beyond their traffic.
double float8_cast_forward_bytes(const GemmShape& g, double rows) {
  return 5.0 * (rows * static_cast<double>(g.k) + static_cast<double>(g.k * g.n));
}
double float8_cast_backward_bytes(const GemmShape& g, double rows) {
  return 5.0 * (rows * static_cast<double>(g.n)) + float8_cast_forward_bytes(g, rows);
}

// Flash attention skips the masked half of a causal sequence's scores; its backward recomputes the scores
// and runs five products to the forward's two (2.5 x the forward's FLOPs: FlashAttention-2, Dao 2023, §3).
constexpr double kCausalShare = 0.5;
constexpr double kAttentionBackwardFlops = 2.5;

}  // namespace

double ComputeModel::kernel_gemm_fraction(OperatorKind kind) const {
  const bool per_kind = product_source_ == KernelProductSource::product_shapes ||
                        product_source_ == KernelProductSource::kind_fits;
  const auto& fitted = calibration_.achievable_fraction[static_cast<std::size_t>(kind)];
  return per_kind ? fitted.value_or(kernels_.gemm_fraction) : kernels_.gemm_fraction;
}

// The kernels' curve: a product of F FLOPs per call runs at the kind's rate x F / (F + half-rate FLOPs); in
// float8 its FLOPs run fp8_speedup times faster and its fixed cost per call stays. A calibration's kind table
// replaces the curve by its factor at F (float8 then speeds the whole product); its product_shapes model
// prices each product by its shape, the backward as the data- and weight-gradient products, at a peak raised
// by the float8 speedup.
ComputeModel::PassSeconds ComputeModel::kernel_product_seconds(OperatorKind kind, const GemmShape& g,
                                                               double samples, double cuts,
                                                               double speedup) const {
  const double peak = peak_flops_per_second();
  const double fraction = kernel_gemm_fraction(kind);
  if (product_source_ == KernelProductSource::product_shapes)
    return shaped_product_seconds(g, samples, cuts, peak * speedup, fraction);
  const double flops = g.flops() * samples;  // all slices together
  const double call_flops = flops / cuts;
  const bool table = product_source_ == KernelProductSource::kind_fits &&
                     !calibration_.gemm_efficiency[static_cast<std::size_t>(kind)].empty();
  const double seconds =
      table
          ? flops / (speedup * peak * fraction * gemm_efficiency_factor(calibration_, kind, call_flops))
          : flops * (call_flops / speedup + kernels_.gemm_half_rate_flops) / (call_flops * (peak * fraction));
  return {seconds, 2 * seconds};  // the backward's data and weight gradients
}

ComputeModel::PassSeconds ComputeModel::kernel_pass_seconds(const Operator& op, double samples,
                                                            int slices) const {
  const double peak = peak_flops_per_second();
  const double cuts = static_cast<double>(std::max(slices, 1));
  const double gemm_rate = peak * kernel_gemm_fraction(op.kind);
  PassSeconds out;
  double product_flops = 0, attention_flops = 0, cast_forward = 0, cast_backward = 0;
  for (const GemmShape& g : op.forward_gemms) {
    const double flops = g.flops() * samples;  // all slices together
    product_flops += g.flops();
    if (attention_product(g)) {
      attention_flops += flops * kCausalShare;
      continue;
    }
    const bool fp8 = options_.float8 != Float8Recipe::none && float8_product(g);
    const double speedup = fp8 ? kernels_.fp8_speedup : 1.0;
    const PassSeconds product = kernel_product_seconds(op.kind, g, samples, cuts, speedup);
    out.forward += product.forward;
    out.backward += product.backward;
    if (fp8 && options_.float8 == Float8Recipe::dynamic) {
      const double rows = static_cast<double>(g.batch * g.m) * (g.per_sample ? 1.0 : samples);
      cast_forward += float8_cast_forward_bytes(g, rows);
      cast_backward += float8_cast_backward_bytes(g, rows);
    }
  }
  out.forward += attention_flops / (peak * kernels_.attention_forward_fraction);
  out.backward += kAttentionBackwardFlops * attention_flops / (peak * kernels_.attention_backward_fraction);
  // FLOPs outside the products (an operator given as a list has no products) at the large-GEMM rate.
  out.forward += samples * std::max(0.0, op.forward_flops_per_sample - product_flops) / gemm_rate;
  out.backward += samples * std::max(0.0, op.backward_flops_per_sample - 2 * product_flops) / gemm_rate;
  // Element-wise kernels (and float8's casts) over HBM; compiled, the fused kernels take a share of it. Only
  // the transformer blocks are compiled (torchtitan compiles each block; the embedding, the head and the
  // loss stay eager).
  const bool compiled = options_.compile && op.layer >= 0;
  const double share = compiled ? runtime_.compiled_elementwise_share : 1.0;
  const double bandwidth = elementwise_bytes_per_second() / share;
  const double kept = static_cast<double>(op.activation_bytes_per_sample) * samples;
  out.forward += (kept + cast_forward) / bandwidth;
  out.backward += (2 * kept + cast_backward) / bandwidth;
  out.forward = std::max(out.forward, cuts * runtime_.host_forward_seconds);
  out.backward = std::max(out.backward, cuts * runtime_.host_backward_seconds);
  return out;
}

}  // namespace shardscope
