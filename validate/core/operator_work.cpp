// Compute task -> the operator's products and element-wise bytes, from the model's forward product shapes.
#include "validate/core/operator_work.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

namespace shardscope::validate {

namespace {

std::int64_t scaled(double value) { return std::max<std::int64_t>(1, std::llround(value)); }

Gemm forward_gemm(const GemmShape& shape, OperatorKind kind, const Task& task, const WorkScale& scale) {
  Gemm g{shape.role, kind, shape.batch, shape.m, shape.n, shape.k};
  if (shape.per_sample) {
    g.batch *= scale.micro_batch;
  } else {
    g.m *= scale.micro_batch;
  }
  g.m = scaled(static_cast<double>(g.m) * scale.compute_scale);
  g.n = scaled(static_cast<double>(g.n) * task.slice_fraction);
  return g;
}

}  // namespace

KernelWork kernel_work(const Model& model, const Task& task, const WorkScale& scale) {
  KernelWork work;
  if (task.stream != Task::Stream::compute || task.operator_index < 0) return work;
  const Operator& op = model.operators.at(static_cast<std::size_t>(task.operator_index));
  const double samples = static_cast<double>(scale.micro_batch);
  if (task.phase == Task::Phase::update) {
    work.elementwise_bytes = 2 * task.update_state_bytes * scale.compute_scale;
    return work;
  }
  if (op.forward_flops_per_sample > 0 && op.forward_gemms.empty()) {
    throw std::invalid_argument(
        "operator '" + op.name +
        "' has FLOPs but no matrix shapes: the executor needs a generated transformer "
        "(model preset, transformer or hf_config), not an operator list");
  }
  const double kept = static_cast<double>(op.activation_bytes_per_sample) * samples * task.slice_fraction *
                      scale.compute_scale;
  for (const GemmShape& shape : op.forward_gemms) {
    const Gemm g = forward_gemm(shape, op.kind, task, scale);
    if (task.phase == Task::Phase::backward) {
      work.gemms.push_back({g.role + "+dgrad", g.operator_kind, g.batch, g.m, g.k, g.n});
      work.gemms.push_back({g.role + "+wgrad", g.operator_kind, g.batch, g.k, g.n, g.m});
    } else {
      work.gemms.push_back(g);
    }
  }
  work.elementwise_bytes = task.phase == Task::Phase::backward ? 2 * kept : kept;
  // A forward's collectives run again when it is recomputed; a slice runs its share of them.
  const bool backward = task.phase == Task::Phase::backward;
  for (const TensorCollective& c : op.tensor_collectives) {
    if (c.backward != backward) continue;
    work.mesh.push_back({c.kind, c.axis,
                         c.bytes_per_sample * samples * task.slice_fraction * scale.compute_scale,
                         c.overlapped, c.all_to_all});
  }
  return work;
}

std::vector<Gemm> distinct_gemms(const Model& model, const IterationProgram& program,
                                 const WorkScale& scale) {
  // One per shape: the first task (in program order) that runs it names its role and operator kind.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, Gemm> shapes;
  for (const Task& task : program.tasks) {
    for (const Gemm& g : kernel_work(model, task, scale).gemms)
      shapes.emplace(std::tie(g.batch, g.m, g.n, g.k), g);
  }
  std::vector<Gemm> out;
  for (const auto& [shape, g] : shapes) out.push_back(g);
  return out;
}

}  // namespace shardscope::validate
