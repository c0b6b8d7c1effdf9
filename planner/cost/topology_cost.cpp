// Topology-aware per-operator cost: PaRO communication per stage (Table 3) and memory (Table 2) per slice.
#include "planner/cost/topology_cost.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace shardscope {
TopologyCostModel::TopologyCostModel(const Scenario& scenario, const Calibration& calibration)
    : TopologyCostModel(scenario, calibration, scenario.training.gradient_accumulation_steps) {}

TopologyCostModel::TopologyCostModel(const Scenario& scenario, const Calibration& calibration,
                                     int accumulation_steps)
    : scenario_(scenario),
      calibration_(calibration),
      accumulation_steps_(accumulation_steps),
      collectives_(scenario.cluster, scenario.training.group_size, calibration),
      compute_(scenario.cluster, scenario.training.precision, calibration),
      state_(state_bytes_per_parameter(scenario.training.precision, scenario.training.optimizer)),
      reserve_bytes_(calibration.runtime_reserve_bytes.value_or(
          static_cast<double>(scenario.training.runtime_reserve_bytes))) {}

double TopologyCostModel::samples_per_iteration(std::int64_t micro_batch) const {
  return static_cast<double>(micro_batch) * accumulation_steps_ * scenario_.cluster.gpus();
}

double TopologyCostModel::per_micro_step_comm_seconds(const OperatorChoice& c, double params,
                                                      bool trainable) const {
  return total_seconds(collectives_, micro_step_collectives(c, params, trainable, state_));
}

double TopologyCostModel::per_iteration_comm_seconds(const OperatorChoice& c, double params,
                                                     bool trainable) const {
  return total_seconds(collectives_,
                       iteration_collectives(c, params, trainable, state_, scenario_.training.group_size));
}

MemoryBreakdown TopologyCostModel::memory(std::size_t op_index, const OperatorChoice& c,
                                          std::int64_t b) const {
  const Operator& op = scenario_.model.operators[op_index];
  const int n = scenario_.cluster.gpus();
  const int group = scenario_.training.group_size;
  const double slice = static_cast<double>(op.parameters) / c.slices;
  const double sharded = slice * c.sharded_slices;
  const double replicated = slice * (c.slices - c.sharded_slices);
  const double trainable = op.trainable ? 1.0 : 0.0;
  MemoryBreakdown m;
  m.parameter_bytes = state_.parameter * (replicated + sharded * scope_share(c.scopes.parameters, n, group));
  if (c.secondary_parameter_partition) m.parameter_bytes += state_.parameter * sharded / group;
  m.gradient_bytes =
      trainable * state_.gradient * (replicated + sharded * scope_share(c.scopes.gradients, n, group));
  m.optimizer_bytes =
      trainable * state_.optimizer * (replicated + sharded * scope_share(c.scopes.optimizer, n, group));
  const double samples = static_cast<double>(b);
  m.activation_bytes = samples * static_cast<double>(c.checkpoint ? op.checkpoint_bytes_per_sample
                                                                  : op.activation_bytes_per_sample);
  if (c.sharded_slices > 0) {
    if (c.scopes.parameters != ShardScope::N) m.gathered_bytes += state_.parameter * slice;
    if (op.trainable && c.scopes.gradients != ShardScope::N) m.gathered_bytes += state_.gradient * slice;
  }
  m.workspace_bytes = samples * static_cast<double>(op.workspace_bytes_per_sample) +
                      (c.checkpoint ? samples * static_cast<double>(op.activation_bytes_per_sample) : 0.0);
  return m;
}

// Every operator field that cost() and memory() read (directly or through the compute model), and only
// those: the name is not read for costs. Keep in step with the two functions below.
std::vector<std::size_t> TopologyCostModel::cost_classes() const {
  using Shape = std::tuple<int, std::int64_t, std::int64_t, int, double, double, std::int64_t, std::int64_t,
                           std::int64_t, bool>;
  std::map<Shape, std::size_t> ids;
  std::vector<std::size_t> out;
  for (const Operator& op : scenario_.model.operators) {
    const Shape shape{static_cast<int>(op.kind),      op.parameters,
                      op.active_parameters,           static_cast<int>(op.parameter_dtype),
                      op.forward_flops_per_sample,    op.backward_flops_per_sample,
                      op.activation_bytes_per_sample, op.checkpoint_bytes_per_sample,
                      op.workspace_bytes_per_sample,  op.trainable};
    out.push_back(ids.emplace(shape, ids.size()).first->second);
  }
  return out;
}

ItemCost TopologyCostModel::cost(std::size_t op_index, const OperatorChoice& c, std::int64_t b) const {
  const Operator& op = scenario_.model.operators[op_index];
  const double samples = static_cast<double>(b);
  const int steps = accumulation_steps_;
  const double slice = static_cast<double>(op.parameters) / c.slices;

  // Per micro-step, in two passes: forward (compute, its gathers) and backward (recompute, backward compute,
  // their gathers and the gradient reduce-scatter). With overlap each pass costs the longer of its two
  // streams plus the slowdown x the shorter: a forward bound by communication cannot hide behind a
  // backward bound by compute, as the simulator's two streams show.
  const double slice_overhead = (c.slices - 1) * calibration_.slice_overhead_seconds;
  const double forward_compute = compute_.forward_seconds(op, samples) + slice_overhead;
  const double backward_compute =
      compute_.backward_seconds(op, samples) + slice_overhead + (c.checkpoint ? forward_compute : 0.0);
  double forward_comm = 0, backward_comm = 0, reduce_comm = 0;
  for (const CollectiveCall& call : micro_step_collectives(c, slice, op.trainable, state_)) {
    const double seconds = c.sharded_slices * collectives_.seconds(call.kind, call.group, call.total_bytes);
    (call.stage == CollectiveCall::Stage::forward_gather    ? forward_comm
     : call.stage == CollectiveCall::Stage::gradient_reduce ? reduce_comm
                                                            : backward_comm) += seconds;
  }
  const double comm_iter =
      c.sharded_slices * per_iteration_comm_seconds(c, slice, op.trainable) +
      (c.slices - c.sharded_slices) * per_iteration_comm_seconds(c.replicated_part(), slice, op.trainable);

  const MemoryBreakdown m = memory(op_index, c, b);
  const double update =
      op.trainable ? compute_.update_seconds(m.parameter_bytes + m.gradient_bytes + m.optimizer_bytes) : 0.0;
  const bool overlap = scenario_.execution.overlap;
  const double slowdown = calibration_.overlap_slowdown;
  const auto pass = [overlap, slowdown](double compute, double comm) {
    return overlap ? std::max(compute, comm) + slowdown * std::min(compute, comm) : compute + comm;
  };
  // The first operator opens the forward pass and closes the backward one: nothing runs beside its forward
  // gather or its last reduce-scatter, so those stay exposed even with overlap.
  const bool edge = op_index == 0;
  const double micro = (edge ? forward_compute + forward_comm : pass(forward_compute, forward_comm)) +
                       (edge ? pass(backward_compute, backward_comm) + reduce_comm
                             : pass(backward_compute, backward_comm + reduce_comm));
  ItemCost out;
  out.seconds = steps * micro + comm_iter + update;
  out.resident_bytes = m.resident();
  out.transient_bytes = m.workspace_bytes + (1 + scenario_.execution.prefetch_depth) * m.gathered_bytes;
  return out;
}

}  // namespace shardscope
