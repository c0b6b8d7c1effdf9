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

// The forward compute of the operator before `op_index` (0 for the first): what its gathers overlap with.
double TopologyCostModel::previous_forward_seconds(std::size_t op_index, double samples) const {
  return op_index == 0 ? 0.0 : compute_.forward_seconds(scenario_.model.operators[op_index - 1], samples);
}

// Seconds of the backward gathers of one slice of `op` under `choice` (none when no slice is sharded).
double TopologyCostModel::slice_backward_gather_seconds(const Operator& op,
                                                        const OperatorChoice& choice) const {
  if (choice.sharded_slices == 0) return 0.0;
  const double slice = static_cast<double>(op.parameters) / choice.slices;
  double seconds = 0;
  for (const CollectiveCall& call : micro_step_collectives(choice, slice, op.trainable, state_)) {
    if (call.stage == CollectiveCall::Stage::backward_gather) {
      seconds += collectives_.seconds(call.kind, call.group, call.total_bytes);
    }
  }
  return seconds;
}

// Every operator field that cost() and memory() read (directly or through the compute model), and only
// those: the name is not read for costs. Keep in step with the two functions below.
std::vector<std::size_t> TopologyCostModel::cost_classes() const {
  // With overlap the cost also reads the previous operator's forward compute and backward gathers, the next
  // operator's backward compute, and the position (first, last).
  using Shape = std::tuple<int, std::int64_t, std::int64_t, int, double, double, std::int64_t, std::int64_t,
                           std::int64_t, bool, int, double, std::int64_t, bool, int, double, int>;
  std::map<Shape, std::size_t> ids;
  std::vector<std::size_t> out;
  const std::vector<Operator>& ops = scenario_.model.operators;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Operator& op = ops[i];
    const int position = i == 0 ? 0 : i + 1 == ops.size() ? 2 : 1;
    const int previous_kind = i == 0 ? -1 : static_cast<int>(ops[i - 1].kind);
    const double previous_flops = i == 0 ? 0.0 : ops[i - 1].forward_flops_per_sample;
    const std::int64_t previous_parameters = i == 0 ? 0 : ops[i - 1].parameters;
    const bool previous_trainable = i == 0 ? false : ops[i - 1].trainable;
    const int next_kind = i + 1 == ops.size() ? -1 : static_cast<int>(ops[i + 1].kind);
    const double next_backward_flops = i + 1 == ops.size() ? 0.0 : ops[i + 1].backward_flops_per_sample;
    const Shape shape{static_cast<int>(op.kind),
                      op.parameters,
                      op.active_parameters,
                      static_cast<int>(op.parameter_dtype),
                      op.forward_flops_per_sample,
                      op.backward_flops_per_sample,
                      op.activation_bytes_per_sample,
                      op.checkpoint_bytes_per_sample,
                      op.workspace_bytes_per_sample,
                      op.trainable,
                      previous_kind,
                      previous_flops,
                      previous_parameters,
                      previous_trainable,
                      next_kind,
                      next_backward_flops,
                      position};
    out.push_back(ids.emplace(shape, ids.size()).first->second);
  }
  return out;
}

// The search prices each operator between neighbours like it (unsliced, with its scopes): separable, and
// exact for uniform plans; a whole plan is priced by scheduling its program (program/schedule.hpp).
ItemCost TopologyCostModel::cost(std::size_t op_index, const OperatorChoice& c, std::int64_t b) const {
  OperatorChoice neighbour = c;
  neighbour.slices = 1;
  neighbour.sharded_slices = c.sharded_slices > 0 ? 1 : 0;
  return priced(op_index, c, neighbour, neighbour, b);
}

ItemCost TopologyCostModel::priced(std::size_t op_index, const OperatorChoice& c,
                                   const OperatorChoice& previous, const OperatorChoice& next,
                                   std::int64_t b) const {
  const Operator& op = scenario_.model.operators[op_index];
  const double samples = static_cast<double>(b);
  const int steps = accumulation_steps_;
  const double slice = static_cast<double>(op.parameters) / c.slices;

  // Per micro-step, a forward and a backward pass. One stream (no overlap) adds everything up. With overlap
  // (communication on its own stream) the costs follow the pipeline the program runs, as measured against
  // the simulator (sim/README.md):
  // - forward: an operator's gather runs while the previous operator computes, so operator i costs
  //   max(forward compute of i - 1, its gathers); the first operator's gathers are exposed, and the last
  //   operator adds its own compute. The neighbour's forward compute does not depend on its choice.
  // - backward of a checkpointed operator: its recompute gather hides behind its backward compute, and its
  //   backward gather and the reduce-scatter queued before it both run during its recompute:
  //   max(backward, recompute gather) + max(recompute, reduce-scatter + backward gather);
  //   otherwise max(backward, backward gather + reduce-scatter). The first operator's last reduce-scatter
  //   closes the pass, exposed.
  // Each max adds the calibrated slowdown x the shorter side.
  const double slice_overhead = (c.slices - 1) * calibration_.slice_overhead_seconds;
  const double forward_compute = compute_.forward_seconds(op, samples) + slice_overhead;
  const double backward_compute = compute_.backward_seconds(op, samples) + slice_overhead;
  const double recompute = c.checkpoint ? forward_compute : 0.0;
  double forward_comm = 0, recompute_comm = 0, backward_comm = 0, reduce_comm = 0;
  for (const CollectiveCall& call : micro_step_collectives(c, slice, op.trainable, state_)) {
    const double seconds = c.sharded_slices * collectives_.seconds(call.kind, call.group, call.total_bytes);
    switch (call.stage) {
      case CollectiveCall::Stage::forward_gather:
        forward_comm += seconds;
        break;
      case CollectiveCall::Stage::recompute_gather:
        recompute_comm += seconds;
        break;
      case CollectiveCall::Stage::gradient_reduce:
        reduce_comm += seconds;
        break;
      default:
        backward_comm += seconds;
    }
  }
  const double comm_iter =
      c.sharded_slices * per_iteration_comm_seconds(c, slice, op.trainable) +
      (c.slices - c.sharded_slices) * per_iteration_comm_seconds(c.replicated_part(), slice, op.trainable);

  const MemoryBreakdown m = memory(op_index, c, b);
  const double update =
      op.trainable ? compute_.update_seconds(m.parameter_bytes + m.gradient_bytes + m.optimizer_bytes) : 0.0;
  double micro = 0;
  if (!scenario_.execution.overlap) {
    micro = forward_compute + recompute + backward_compute + forward_comm + recompute_comm + backward_comm +
            reduce_comm;
  } else {
    const double slowdown = calibration_.overlap_slowdown;
    const auto pass = [slowdown](double compute, double comm) {
      return std::max(compute, comm) + slowdown * std::min(compute, comm);
    };
    const bool first = op_index == 0;
    const bool last = op_index + 1 == scenario_.model.operators.size();
    const double forward =
        (first ? forward_comm
               : pass(previous_forward_seconds(op_index, samples) / previous.slices, forward_comm)) +
        (last ? forward_compute : 0.0);
    const double reduce_in_pass = first ? 0.0 : reduce_comm;
    // With a backward gather queued behind the reduce-scatter, both must finish within the recompute;
    // without one, the reduce-scatter runs beside the whole backward of the operator.
    const bool regathers = c.checkpoint && backward_comm > 0;
    // The comm beyond a window it shares: max(window, comm) - window, plus the slowdown.
    const auto exposed = [slowdown](double window, double comm) {
      return std::max(0.0, comm - window) + slowdown * std::min(window, comm);
    };
    // The reduce-scatter before an operator's backward gather is the one of the operator after it (whose
    // backward ran just before), so a window is shared by neighbours: this operator pays its own recompute
    // in full, and its reduce-scatter beside the operator before it: with the gather of a checkpointed
    // predecessor during its recompute (its forward compute, as in the forward pass), else during its
    // backward (a predecessor that is not recomputed prefetched its gather earlier). The last operator's
    // own recompute window holds its gather alone.
    // A sliced neighbour shares the window of one slice (the one that runs next to this operator).
    double regather_pass = pass(recompute, backward_comm);
    if (!first) {
      const Operator& before = scenario_.model.operators[op_index - 1];
      regather_pass =
          recompute + (last ? exposed(recompute, backward_comm) : 0.0) +
          (previous.checkpoint
               ? exposed(compute_.forward_seconds(before, samples) / previous.slices,
                         reduce_in_pass + slice_backward_gather_seconds(before, previous))
               : exposed(compute_.backward_seconds(before, samples) / previous.slices, reduce_in_pass));
    }
    // Its recompute gather is prefetched while the operator after it (its last slice) runs its backward.
    const double recompute_gather_pass =
        last ? pass(backward_compute, recompute_comm)
             : backward_compute +
                   exposed(compute_.backward_seconds(scenario_.model.operators[op_index + 1], samples) /
                               next.slices,
                           recompute_comm);
    const double backward =
        regathers ? recompute_gather_pass + regather_pass
                  : pass(backward_compute + recompute, recompute_comm + backward_comm + reduce_in_pass);
    micro = forward + backward + (first ? reduce_comm : 0.0);
  }
  ItemCost out;
  out.seconds = steps * micro + comm_iter + update;
  out.resident_bytes = m.resident();
  out.transient_bytes = m.workspace_bytes + (1 + scenario_.execution.prefetch_depth) * m.gathered_bytes;
  return out;
}

}  // namespace shardscope
