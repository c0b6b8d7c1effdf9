// Topology-aware per-operator cost: PaRO communication per stage (Table 3) and memory (Table 2) per slice.
#include "planner/cost/topology_cost.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

#include "planner/core/scenario_check.hpp"

namespace shardscope {

namespace {

// The model-state bytes per parameter, gradients reduced in the scenario's reduce dtype. A stage that keeps
// its gradients whole through the step accumulates them in that dtype too (FSDP2 upcasts an unsharded
// gradient it does not reduce yet to reduce_dtype: FSDPParam.to_accumulated_grad_if_needed).
StateBytesPerParameter scenario_state_bytes(const Scenario& scenario) {
  StateBytesPerParameter s =
      state_bytes_per_parameter(scenario.training.precision, scenario.training.optimizer);
  if (scenario.execution.reduce_dtype == ReduceDtype::fp32) s.reduce = 4;
  if (stage_shards_optimizer_only(scenario)) s.gradient = std::max(s.gradient, s.reduce);
  return s;
}

// For each i, the largest of values[j] over j in [i - reach, i - 1] (`ahead` false) or [i + 1, i + reach]
// (`ahead` true); 0 where the range is empty. A sliding maximum: linear in the operator count.
std::vector<double> window_maximum(const std::vector<double>& values, std::size_t reach, bool ahead) {
  const std::size_t n = values.size();
  std::vector<double> out(n, 0.0);
  std::deque<std::size_t> window;  // indices, values decreasing
  for (std::size_t step = 0; step < n; ++step) {
    const std::size_t i = ahead ? n - 1 - step : step;  // walk towards the window's side
    const auto distance = [&](std::size_t j) { return ahead ? j - i : i - j; };
    while (!window.empty() && distance(window.front()) > reach) window.pop_front();
    if (!window.empty()) out[i] = values[window.front()];
    while (!window.empty() && values[window.back()] <= values[i]) window.pop_back();
    window.push_back(i);
  }
  return out;
}

}  // namespace

namespace {

// A key for an operator's tensor-parallel collectives: the same kinds and passes at the same bytes cost
// alike; this sum tells generated operators' apart (0 without tensor parallelism).
double tensor_collective_bytes(const Operator& op) {
  double sum = 0;
  for (const TensorCollective& c : op.tensor_collectives)
    sum += c.bytes_per_sample *
           (1 + static_cast<int>(c.kind) + (c.backward ? 8 : 0) + (c.axis == MeshAxis::context ? 16 : 0) +
            (c.overlapped ? 32 : 0) + (c.axis == MeshAxis::expert ? 64 : 0) + (c.all_to_all ? 128 : 0));
  return sum;
}

}  // namespace

MeshGroupCosts mesh_group_costs(const Scenario& scenario, const Calibration& calibration,
                                CollectiveModel collectives) {
  MeshGroupCosts out;
  if (!scenario.mesh.sliced()) return out;
  const TensorSlice& slice = scenario.mesh.tensor;
  if (slice.degree > 1) {
    out.tensor = std::make_shared<const CollectiveCost>(scenario.mesh.physical, slice.degree, calibration,
                                                        collectives);
  }
  if (slice.context > 1) {
    out.context =
        std::make_shared<const CollectiveCost>(scenario.cluster, slice.context, calibration, collectives);
  }
  if (slice.expert > 1) {
    out.expert =
        std::make_shared<const AllToAllLink>(all_to_all_link(scenario.cluster, calibration, slice.expert));
  }
  return out;
}

TopologyCostModel::TopologyCostModel(const ValidScenario& scenario, const Calibration& calibration,
                                     const CostModelOptions& options)
    : operators_(scenario.operators()),
      gpus_(scenario.cluster.gpus()),
      group_size_(scenario.training.group_size),
      execution_(scenario.execution),
      calibration_(calibration),
      accumulation_steps_(accumulation_steps_of(scenario, options)),
      collectives_(scenario.cluster, scenario.training.group_size, calibration, options.collectives),
      compute_(scenario.cluster, scenario.training.precision, calibration, scenario.execution.runtime,
               scenario.execution.kernel_options,
               mesh_group_costs(scenario, calibration, options.collectives)),
      state_(scenario_state_bytes(scenario)),
      reserve_bytes_(runtime_reserve_bytes(scenario, calibration)),
      neighbour_mode_(options.neighbours),
      space_shards_parameters_(options.parameters_sharded),
      space_shards_gradients_(options.gradients_sharded),
      block_checkpoints_(scenario.execution.runtime.kernel_pricing() &&
                         (scenario.training.checkpointing == CheckpointPolicy::all ||
                          scenario.training.checkpointing == CheckpointPolicy::layers)),
      selective_(scenario.training.checkpointing == CheckpointPolicy::selective),
      recompute_gathers_again_(scenario.execution.runtime.recompute_gathers_again),
      loss_gradients_(scenario.execution.cross_entropy == CrossEntropy::pytorch ? 2 : 1),
      in_flight_micro_batches_(scenario.scenario().mesh.pipeline.in_flight_micro_batches) {
  const std::vector<Operator>& ops = *operators_;
  std::vector<double> parameters;
  parameters.reserve(ops.size());
  for (const Operator& op : ops) parameters.push_back(static_cast<double>(op.parameters));
  // Positions in program order (forward, then backward in reverse): the prefetch_depth positions after an
  // operator's belong to operators at most prefetch_depth away on either side (docs: "Memory").
  const auto reach = static_cast<std::size_t>(std::max(0, execution_.prefetch_depth));
  const std::vector<double> before = window_maximum(parameters, reach, false);
  const std::vector<double> after = window_maximum(parameters, reach, true);
  neighbour_parameters_.assign(ops.size(), 0.0);
  next_trainable_parameters_.assign(ops.size(), 0.0);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    neighbour_parameters_[i] = std::max(before[i], after[i]);
    if (i + 1 < ops.size() && ops[i + 1].trainable) next_trainable_parameters_[i] = parameters[i + 1];
  }
}

// What the operator may hold beyond its resident states while it runs (its neighbours' buffers counted as
// CostModelOptions::neighbours says; with any_choice, a bound whatever they choose): the backward is the
// larger pass (it adds recomputed activations and gradient buffers to the forward's). Its workspace, its
// slice's gathered parameters, prefetch_depth more parameter buffers (the positions after its own: its
// neighbours', the largest they may gather, or its own again when it has more sharded slices, regathers after
// a recompute, or is within reach of the turn from forward to backward or of the next micro-step), its
// slice's unreduced gradients, the gradients released just before it (its previous slice's or the next
// operator's, still being reduce-scattered) and a gradient bucket not yet full.
double TopologyCostModel::transient_bound_bytes(std::size_t op_index, const OperatorChoice& c,
                                                const MemoryBreakdown& m) const {
  const Operator& op = (*operators_)[op_index];
  const double slice = static_cast<double>(op.parameters) / c.slices;
  const bool sharded = c.sharded_slices > 0;
  const double own_parameters =
      sharded && c.scopes.parameters != ShardScope::N ? state_.parameter * slice : 0.0;
  const double own_gradients =
      sharded && op.trainable && c.scopes.gradients != ShardScope::N ? state_.gradient * slice : 0.0;
  const long long depth = std::max(0, execution_.prefetch_depth);
  const auto i = static_cast<long long>(op_index);
  const auto last = static_cast<long long>((*operators_).size()) - 1;
  // Positions from its forward to its own backward, and from its backward to its next forward.
  const bool turn = 2 * (last - i) + 1 <= depth;
  const bool wrap = accumulation_steps_ > 1 && 2 * i + 1 <= depth;
  const bool own_again = c.sharded_slices > 1 || c.checkpoint || turn || wrap;
  // The neighbours' buffers: with the same choice (their slices of this choice's count, only where this
  // choice shards), or the largest any choice of the space gives them (whole, unsliced).
  const bool alike = neighbour_mode_ == NeighbourBuffers::alike;
  const bool neighbours_gather = alike ? own_parameters > 0 : space_shards_parameters_;
  const bool neighbours_reduce = alike ? own_gradients > 0 : space_shards_gradients_;
  const double neighbour_slices = alike ? c.slices : 1;
  const double neighbour_parameters =
      neighbours_gather ? state_.parameter * neighbour_parameters_[op_index] / neighbour_slices : 0.0;
  const double next_gradients =
      neighbours_reduce ? state_.gradient * next_trainable_parameters_[op_index] / neighbour_slices : 0.0;
  const double prefetched =
      static_cast<double>(depth) * std::max(own_again ? own_parameters : 0.0, neighbour_parameters);
  const double released = std::max(c.sharded_slices > 1 ? own_gradients : 0.0, next_gradients);
  const double bucket = execution_.bucket_bytes;
  // One stream (overlap off) runs each gather and reduce-scatter before the compute that follows it: no
  // buffer is prefetched, and the gradients released before the operator are reduced before it computes.
  if (!execution_.overlap) {
    return m.workspace_bytes + own_parameters + std::max(own_gradients, released) + bucket;
  }
  return m.workspace_bytes + own_parameters + prefetched + own_gradients + released + bucket;
}

double TopologyCostModel::samples_per_iteration(std::int64_t micro_batch) const {
  return static_cast<double>(micro_batch) * accumulation_steps_ * gpus_;
}

double TopologyCostModel::per_micro_step_comm_seconds(const OperatorChoice& c, double params, bool trainable,
                                                      bool expert_parallel) const {
  return total_seconds(collectives_, micro_step_calls(c, params, trainable, expert_parallel));
}

double TopologyCostModel::per_iteration_comm_seconds(const OperatorChoice& c, double params, bool trainable,
                                                     bool expert_parallel) const {
  return total_seconds(collectives_,
                       iteration_collectives(c, params, trainable, state_, group_size_, expert_parallel));
}

double TopologyCostModel::kept_bytes_per_sample(std::size_t op_index, const OperatorChoice& c) const {
  const Operator& op = (*operators_)[op_index];
  if (!c.checkpoint) return static_cast<double>(op.activation_bytes_per_sample);
  const bool block_tail = block_checkpoints_ &&
                          (op.kind == OperatorKind::mlp || op.kind == OperatorKind::moe) && op_index > 0 &&
                          (*operators_)[op_index - 1].kind == OperatorKind::attention;
  if (block_tail) return 0.0;
  if (selective_ && op.selective_bytes_per_sample >= 0)
    return static_cast<double>(op.selective_bytes_per_sample);
  return static_cast<double>(op.checkpoint_bytes_per_sample);
}

double TopologyCostModel::recomputed_bytes_per_sample(std::size_t op_index, const OperatorChoice& c) const {
  const Operator& op = (*operators_)[op_index];
  if (!c.checkpoint) return 0.0;
  const double all = static_cast<double>(op.activation_bytes_per_sample);
  if (!selective_ || op.selective_bytes_per_sample < 0) return all;
  return std::max(0.0, all - static_cast<double>(op.selective_bytes_per_sample));
}

double TopologyCostModel::recompute_fraction(std::size_t op_index, const OperatorChoice& c) const {
  const Operator& op = (*operators_)[op_index];
  if (!c.checkpoint) return 0.0;
  if (!selective_ || op.selective_recompute_flops_per_sample < 0) return 1.0;
  if (op.forward_flops_per_sample <= 0) return 0.0;  // nothing to recompute (scenario validation: <= forward)
  return op.selective_recompute_flops_per_sample / op.forward_flops_per_sample;
}

double TopologyCostModel::workspace_bytes_per_sample(const Operator& op) const {
  return static_cast<double>(op.workspace_bytes_per_sample) +
         (loss_gradients_ - 1) * static_cast<double>(op.loss_gradient_bytes_per_sample);
}

MemoryBreakdown TopologyCostModel::memory(std::size_t op_index, const OperatorChoice& given,
                                          std::int64_t b) const {
  const Operator& op = (*operators_)[op_index];
  const OperatorChoice c = acting_choice(op_index, given);
  // An expert-parallel operator's G scope shards over the n / M GPUs holding its experts.
  const int n = op.expert_parallel ? gpus_ / group_size_ : gpus_;
  const int group = group_size_;
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
  m.activation_bytes = samples * kept_bytes_per_sample(op_index, c) * in_flight_micro_batches_;
  if (c.sharded_slices > 0) {
    if (c.scopes.parameters != ShardScope::N) m.gathered_bytes += state_.parameter * slice;
    if (op.trainable && c.scopes.gradients != ShardScope::N) m.gathered_bytes += state_.gradient * slice;
  }
  m.workspace_bytes =
      samples * workspace_bytes_per_sample(op) + samples * recomputed_bytes_per_sample(op_index, c);
  return m;
}

// The forward compute of the operator before `op_index` (0 for the first): what its gathers overlap with.
double TopologyCostModel::previous_forward_seconds(std::size_t op_index, double samples) const {
  return op_index == 0 ? 0.0 : compute_.forward_seconds((*operators_)[op_index - 1], samples);
}

// Seconds of the backward gathers of the operator before `op_index`, were it to make `choice` unsliced: the
// search prices an operator between neighbours like it, which keeps it separable (exact for uniform plans).
double TopologyCostModel::previous_backward_gather_seconds(std::size_t op_index,
                                                           const OperatorChoice& choice) const {
  const Operator& previous = (*operators_)[op_index - 1];
  OperatorChoice unsliced = choice;
  unsliced.slices = 1;
  unsliced.sharded_slices = 1;
  double seconds = 0;
  for (const CollectiveCall& call : micro_step_calls(unsliced, static_cast<double>(previous.parameters),
                                                     previous.trainable, previous.expert_parallel)) {
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
  // The transient bound also reads the neighbours' largest buffers.
  using Shape = std::tuple<int, std::int64_t, std::int64_t, int, double, double, std::int64_t, std::int64_t,
                           std::int64_t, bool, int, double, std::int64_t, bool, int, double, int, double,
                           double, int, std::int64_t, double, double>;
  std::map<Shape, std::size_t> ids;
  std::vector<std::size_t> out;
  const std::vector<Operator>& ops = (*operators_);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Operator& op = ops[i];
    // First, last or between; the transient bound also reads how far the operator is from either end.
    const int position = i == 0 ? 0 : i + 1 == ops.size() ? 2 : 1;
    const auto reach = static_cast<std::size_t>(std::max(0, execution_.prefetch_depth));
    const int from_end = static_cast<int>(std::min({i, ops.size() - 1 - i, reach + 1}));
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
                      static_cast<std::int64_t>(workspace_bytes_per_sample(op)),
                      op.trainable,
                      previous_kind,
                      previous_flops,
                      previous_parameters,
                      previous_trainable,
                      next_kind,
                      next_backward_flops,
                      position,
                      neighbour_parameters_[i],
                      next_trainable_parameters_[i],
                      from_end,
                      op.selective_bytes_per_sample,
                      op.selective_recompute_flops_per_sample,
                      tensor_collective_bytes(op)};
    out.push_back(ids.emplace(shape, ids.size()).first->second);
  }
  return out;
}

namespace {

// One micro-step's communication seconds of a choice's sharded slices, by the stage that waits for them.
struct StageCommSeconds {
  double forward = 0;    // parameter gathers before the forward
  double recompute = 0;  // gathers again before a checkpointed operator's recompute
  double backward = 0;   // gathers before the backward
  double reduce = 0;     // gradient reduce-scatters after it
};

StageCommSeconds stage_comm_seconds(const TopologyCostModel& model, const OperatorChoice& c, double slice,
                                    const Operator& op) {
  StageCommSeconds out;
  for (const CollectiveCall& call : model.micro_step_calls(c, slice, op.trainable, op.expert_parallel)) {
    const double seconds =
        c.sharded_slices * model.collectives().seconds(call.kind, call.group, call.total_bytes);
    switch (call.stage) {
      case CollectiveCall::Stage::forward_gather:
        out.forward += seconds;
        break;
      case CollectiveCall::Stage::recompute_gather:
        out.recompute += seconds;
        break;
      case CollectiveCall::Stage::gradient_reduce:
        out.reduce += seconds;
        break;
      default:
        out.backward += seconds;
    }
  }
  return out;
}

}  // namespace

// A whole plan is priced by scheduling its program (program/schedule.hpp); this per-operator price is the
// search's, its neighbours' windows taken as the program gives them.
ItemCost TopologyCostModel::cost(std::size_t op_index, const OperatorChoice& given, std::int64_t b) const {
  const Operator& op = (*operators_)[op_index];
  const OperatorChoice c = acting_choice(op_index, given);
  const double samples = static_cast<double>(b);
  const int steps = accumulation_steps_;
  const double slice = static_cast<double>(op.parameters) / c.slices;

  // Per micro-step, a forward and a backward pass. One stream (no overlap) adds everything up. With overlap
  // (communication on its own stream) each collective is priced against the compute window the program
  // gives it (sim/README.md); each window adds the calibrated slowdown x the shorter side.
  const double slice_overhead = (c.slices - 1) * calibration_.slice_overhead_seconds;
  const ComputeModel::PassSeconds passes = compute_.pass_seconds(op, samples, c.slices);
  const double forward_compute = passes.forward + slice_overhead;
  const double backward_compute = passes.backward + slice_overhead;
  const double recompute = recompute_fraction(op_index, c) * forward_compute;
  const StageCommSeconds stage_comm = stage_comm_seconds(*this, c, slice, op);
  const double forward_comm = stage_comm.forward, recompute_comm = stage_comm.recompute,
               backward_comm = stage_comm.backward, reduce_comm = stage_comm.reduce;
  const double comm_iter =
      c.sharded_slices * per_iteration_comm_seconds(c, slice, op.trainable, op.expert_parallel) +
      (c.slices - c.sharded_slices) *
          per_iteration_comm_seconds(c.replicated_part(), slice, op.trainable, op.expert_parallel);

  const MemoryBreakdown m = memory(op_index, c, b);
  const double update =
      op.trainable ? compute_.update_seconds(m.parameter_bytes + m.gradient_bytes + m.optimizer_bytes) : 0.0;
  double micro = 0;
  if (!execution_.overlap) {
    micro = forward_compute + recompute + backward_compute + forward_comm + recompute_comm + backward_comm +
            reduce_comm;
  } else {
    const double slowdown = calibration_.overlap_slowdown;
    const auto pass = [slowdown](double compute, double comm) {
      return std::max(compute, comm) + slowdown * std::min(compute, comm);
    };
    const bool first = op_index == 0;
    const bool last = op_index + 1 == (*operators_).size();
    // Forward: an operator's gathers run while the previous operator computes; the first operator's
    // gathers are exposed, and the last operator adds its own compute.
    const double forward =
        (first ? forward_comm : pass(previous_forward_seconds(op_index, samples), forward_comm)) +
        (last ? forward_compute : 0.0);
    const double reduce_in_pass = first ? 0.0 : reduce_comm;
    // The comm beyond a window it shares: max(window, comm) - window, plus the slowdown.
    const auto exposed = [slowdown](double window, double comm) {
      return std::max(0.0, comm - window) + slowdown * std::min(window, comm);
    };
    // Backward of a checkpointed operator that gathers again: the reduce-scatter before an operator's
    // backward gather is that of the operator after it (whose backward ran just before), so this operator
    // pays its own recompute in full, and its reduce-scatter with the predecessor's backward gather during
    // the predecessor's recompute (its forward compute). The last operator's own recompute window holds
    // its gather alone; the first operator's reduce-scatter closes the pass, exposed.
    const bool regathers = c.checkpoint && backward_comm > 0;
    const double regather_pass =
        first ? pass(recompute, backward_comm)
              : recompute + (last ? exposed(recompute, backward_comm) : 0.0) +
                    exposed(previous_forward_seconds(op_index, samples) * recompute_fraction(op_index - 1, c),
                            reduce_in_pass + previous_backward_gather_seconds(op_index, c));
    // Its recompute gather is prefetched while the operator after it runs its backward.
    const double recompute_gather_pass =
        last ? pass(backward_compute, recompute_comm)
             : backward_compute +
                   exposed(compute_.backward_seconds((*operators_)[op_index + 1], samples), recompute_comm);
    // Otherwise the reduce-scatter runs beside the whole backward of the operator.
    const double backward =
        regathers ? recompute_gather_pass + regather_pass
                  : pass(backward_compute + recompute, recompute_comm + backward_comm + reduce_in_pass);
    micro = forward + backward + (first ? reduce_comm : 0.0);
  }
  ItemCost out;
  out.seconds = steps * micro + comm_iter + update;
  out.resident_bytes = m.resident();
  out.transient_bytes = transient_bound_bytes(op_index, c, m);
  return out;
}

}  // namespace shardscope
