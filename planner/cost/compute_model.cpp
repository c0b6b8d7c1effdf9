// Compute model: FLOPs / (peak rate x achievable fraction x product-size factor), or each product by its
// shape (a calibration's product_shapes), plus element-wise bytes where a calibration prices them; update
// time from HBM (or the calibration's element-wise) bandwidth.
#include "planner/cost/compute_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardscope {

ComputeModel::ComputeModel(const Cluster& cluster, Precision precision, const Calibration& calibration,
                           const RuntimeProfile& runtime, const KernelOptions& options, MeshGroupCosts mesh)
    : mesh_(std::move(mesh)),
      gpu_(cluster.gpu),
      precision_(precision),
      calibration_(calibration),
      runtime_(effective_runtime(runtime, calibration.runtime)),
      kernels_(effective_kernels(cluster.gpu.kernels.value_or(KernelEfficiency{}), calibration.runtime)),
      options_(options),
      product_source_(kernel_product_source(calibration)) {}

double ComputeModel::peak_flops_per_second() const {
  return precision_ == Precision::fp32 ? gpu_.peak_flops_per_second_fp32 : gpu_.peak_flops_per_second_fp16;
}

double ComputeModel::flops_per_second(const Operator& op) const {
  const double peak = peak_flops_per_second();
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

double ComputeModel::mesh_collective_seconds(const Operator& op, const TensorCollective& c,
                                             double bytes) const {
  if (c.all_to_all) {
    if (!mesh_.expert)
      throw std::logic_error("operator '" + op.name + "' has all-to-alls and no expert group");
    return mesh_.expert->seconds(bytes);
  }
  const std::shared_ptr<const CollectiveCost>& group =
      c.axis == MeshAxis::tensor ? mesh_.tensor : mesh_.context;
  if (!group) throw std::logic_error("operator '" + op.name + "' has mesh collectives and no mesh group");
  return group->seconds(c.kind, GroupKind::intra, bytes);
}

ComputeModel::MeshCollectivePrice ComputeModel::mesh_collective_price(const Operator& op,
                                                                      const TensorCollective& c,
                                                                      double bytes) const {
  MeshCollectivePrice out;
  out.seconds = mesh_collective_seconds(op, c, bytes);
  if (c.axis == MeshAxis::context && !c.all_to_all) {  // a ring on the context group: one byte's time
    out.group_ranks = mesh_.context->group_ranks(GroupKind::intra);
    if (out.seconds > 0)
      out.latency_seconds = std::min(out.seconds, mesh_.context->seconds(c.kind, GroupKind::intra, 1.0));
    return out;
  }
  if (!c.all_to_all) return out;
  out.group_ranks = mesh_.expert->ranks;
  if (out.seconds > 0) out.latency_seconds = std::min(out.seconds, mesh_.expert->alpha_seconds);
  return out;
}

ComputeModel::PassSeconds ComputeModel::pass_seconds(const Operator& op, double samples, int slices) const {
  const PassSeconds kernels = kernel_seconds(op, samples, slices);
  if (op.tensor_collectives.empty()) return kernels;
  PassSeconds blocking, overlapped;
  for (const TensorCollective& c : op.tensor_collectives) {
    const double seconds = mesh_collective_seconds(op, c, c.bytes_per_sample * samples);
    PassSeconds& into = c.overlapped ? overlapped : blocking;
    (c.backward ? into.backward : into.forward) += seconds;
  }
  // The overlapped exchange hides behind the operator's own kernels; only what it takes beyond them shows.
  return {kernels.forward + blocking.forward + std::max(0.0, overlapped.forward - kernels.forward),
          kernels.backward + blocking.backward + std::max(0.0, overlapped.backward - kernels.backward)};
}

ComputeModel::PassSeconds ComputeModel::kernel_seconds(const Operator& op, double samples, int slices) const {
  if (runtime_.kernel_pricing()) return kernel_pass_seconds(op, samples, slices);
  PassSeconds out;
  if (calibration_.product_shapes && !op.forward_gemms.empty()) {
    out = shaped_pass_seconds(op, samples, slices);
  } else {
    const double rate = flops_per_second(op) * size_factor(op, samples, slices);
    out = {samples * op.forward_flops_per_sample / rate, samples * op.backward_flops_per_sample / rate};
  }
  if (calibration_.elementwise_bytes_per_second > 0) {
    const double kept = static_cast<double>(op.activation_bytes_per_sample) * samples;
    out.forward += kept / calibration_.elementwise_bytes_per_second;
    out.backward += 2 * kept / calibration_.elementwise_bytes_per_second;
  }
  return out;
}

// Each forward product by its shape (shaped_product_seconds) at the kind's fraction; FLOPs outside the
// products at the kind's rate.
ComputeModel::PassSeconds ComputeModel::shaped_pass_seconds(const Operator& op, double samples,
                                                            int slices) const {
  const double peak = peak_flops_per_second();
  const double fraction = flops_per_second(op) / peak;
  const double cuts = static_cast<double>(std::max(slices, 1));
  PassSeconds out;
  double product_flops = 0;
  for (const GemmShape& g : op.forward_gemms) {
    const PassSeconds product = shaped_product_seconds(g, samples, cuts, peak, fraction);
    out.forward += product.forward;
    out.backward += product.backward;
    product_flops += g.flops();
  }
  const double rate = flops_per_second(op);
  out.forward += samples * std::max(0.0, op.forward_flops_per_sample - product_flops) / rate;
  out.backward += samples * std::max(0.0, op.backward_flops_per_sample - 2 * product_flops) / rate;
  return out;
}

ComputeModel::PassSeconds ComputeModel::shaped_product_seconds(const GemmShape& g, double samples,
                                                               double cuts, double peak,
                                                               double fraction) const {
  const double batch = static_cast<double>(g.batch) * (g.per_sample ? samples : 1.0);
  const double m = static_cast<double>(g.m) * (g.per_sample ? 1.0 : samples);
  const double n = static_cast<double>(g.n) / cuts, k = static_cast<double>(g.k);
  const auto seconds = [&](double rows, double columns, double reduction) {
    return cuts * product_shape_seconds(*calibration_.product_shapes, peak, fraction, batch, rows, columns,
                                        reduction);
  };
  return {seconds(m, n, k), seconds(m, k, n) + seconds(k, n, m)};
}

double ComputeModel::update_seconds(double owned_state_bytes) const {
  return 2 * owned_state_bytes / elementwise_bytes_per_second();
}

double ComputeModel::elementwise_bytes_per_second() const {
  if (runtime_.kernel_pricing()) return gpu_.hbm_bytes_per_second * kernels_.elementwise_fraction;
  if (calibration_.elementwise_bytes_per_second > 0) return calibration_.elementwise_bytes_per_second;
  return gpu_.hbm_bytes_per_second;
}

}  // namespace shardscope
