// Builds one iteration of a plan as tasks: per micro-step forward and backward per operator and slice
// (gathers, compute, reduce-scatters, activations), then gradient sync, optimizer update, parameter rebuild.
#include "planner/program/iteration_program.hpp"

#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/cost/topology_cost.hpp"

namespace shardscope {

namespace {

std::size_t at(MemoryCategory c) { return static_cast<std::size_t>(c); }

class Builder {
 public:
  Builder(IterationProgram& program, int prefetch_depth, bool serial)
      : program_(program), prefetch_depth_(prefetch_depth), serial_(serial) {}

  int compute(const std::string& name, double seconds, int wait_for = -1) {
    Task t;
    t.stream = Task::Stream::compute;
    t.name = name;
    t.compute_seconds = seconds;
    t.wait_for_other = serial_ ? -1 : wait_for;
    return push(std::move(t));
  }

  int collective(const std::string& name, const CollectiveCall& call, int wait_for = -1) {
    Task t;
    t.stream = serial_ ? Task::Stream::compute : Task::Stream::comm;
    t.name = name;
    t.kind = call.kind;
    t.group = call.group;
    t.total_bytes = call.total_bytes;
    t.wait_for_other = serial_ ? -1 : wait_for;
    return push(std::move(t));
  }

  // A gather may start once the compute that consumed the gather prefetch_depth + 1 earlier is done.
  int gather_dependency() const {
    const std::size_t n = consumers_.size();
    const std::size_t back = static_cast<std::size_t>(prefetch_depth_) + 1;
    return n >= back ? consumers_[n - back] : -1;
  }
  void consumed_by(int compute_task) { consumers_.push_back(compute_task); }

  Task& task(int index) { return program_.tasks[static_cast<std::size_t>(index)]; }
  int last_compute() const { return last_compute_; }

 private:
  int push(Task t) {
    program_.tasks.push_back(std::move(t));
    const int index = static_cast<int>(program_.tasks.size()) - 1;
    if (program_.tasks.back().stream == Task::Stream::compute) last_compute_ = index;
    return index;
  }
  IterationProgram& program_;
  int prefetch_depth_;
  bool serial_;
  std::vector<int> consumers_;
  int last_compute_ = -1;
};

// Adds the all-gather of `stage` (if the choice has one) with its gathered buffer; returns its task or -1.
int gather_task(Builder& b, const std::vector<CollectiveCall>& calls, CollectiveCall::Stage stage,
                const std::string& name) {
  int task = -1;
  for (const CollectiveCall& call : calls) {
    if (call.stage != stage) continue;
    task = b.collective(name, call, b.gather_dependency());
    b.task(task).alloc_at_start[at(MemoryCategory::gathered)] = call.total_bytes;
  }
  return task;
}

}  // namespace

IterationProgram build_iteration_program(const Scenario& scenario, const Calibration& calibration,
                                         const Plan& plan, int prefetch_depth, bool serial,
                                         double bucket_bytes) {
  validate_scenario(scenario);
  if (scenario.planner.cost_model != CostModelKind::topology) {
    throw InputError(
        scenario.source_file, 0, "planner.cost_model",
        "the simulator needs the topology cost model (the paper model has no cluster to simulate)");
  }
  if (plan.operators.size() != scenario.model.operators.size()) {
    throw InputError(scenario.source_file, 0, "plan.operators",
                     "the plan does not match the model's operators");
  }
  Scenario s = scenario;
  s.training.gradient_accumulation_steps = plan.gradient_accumulation_steps;
  const TopologyCostModel model(s, calibration);
  IterationProgram program;
  Builder b(program, prefetch_depth, serial);
  const double samples = static_cast<double>(plan.micro_batch);
  const std::size_t n = s.model.operators.size();
  const StateBytesPerParameter& bytes = model.state_bytes();

  // Resident for the whole iteration: model states of every operator and the runtime reserve.
  for (std::size_t i = 0; i < n; ++i) {
    const MemoryBreakdown m = model.memory(i, plan.operators[i], plan.micro_batch);
    program.resident[at(MemoryCategory::parameters)] += m.parameter_bytes;
    program.resident[at(MemoryCategory::gradients)] += m.gradient_bytes;
    program.resident[at(MemoryCategory::optimizer)] += m.optimizer_bytes;
  }
  program.resident[at(MemoryCategory::reserve)] = model.fixed_bytes();

  // Gradient reduce-scatters waiting to be issued together (one bucket).
  struct Bucket {
    CollectiveCall call{};
    double bytes = 0;
    double buffers = 0;
    int after = -1;
    std::string name;
  } bucket;
  auto flush = [&]() {
    if (bucket.bytes <= 0) return;
    CollectiveCall merged = bucket.call;
    merged.total_bytes = bucket.bytes;
    const int rs = b.collective(bucket.name, merged, bucket.after);
    b.task(rs).free_at_end[at(MemoryCategory::gathered)] = bucket.buffers;
    bucket = Bucket{};
  };
  // A slice's gradient reduce-scatter waits until the next slice's first gather is queued on the
  // communication stream (FSDP's backward prefetch, BACKWARD_PRE): queued in plain order, the next
  // gather would wait behind a reduce-scatter that waits for the backward compute.
  struct PendingReduce {
    CollectiveCall call;
    double buffer_bytes;
    int after;
    std::string name;
  };
  std::vector<PendingReduce> pending;
  auto issue_pending_reduces = [&]() {
    for (const PendingReduce& r : pending) {
      if (bucket.bytes > 0 && (bucket.call.group != r.call.group || bucket.call.kind != r.call.kind)) flush();
      bucket.call = r.call;
      bucket.bytes += r.call.total_bytes;
      bucket.buffers += r.buffer_bytes;
      bucket.after = r.after;
      bucket.name = bucket.name.empty() ? r.name : bucket.name + "+";
      if (bucket.bytes >= bucket_bytes) flush();
    }
    pending.clear();
  };

  // What every micro-step needs per operator, computed once.
  struct Pass {
    std::vector<CollectiveCall> calls;  // of one slice
    double slice_parameters = 0;
    double fwd_seconds = 0;  // per slice, with its share of the slicing overhead
    double bwd_seconds = 0;
    double kept_bytes = 0;  // activations (or checkpoint inputs) kept for backward
    double workspace_bytes = 0;
    double recomputed_bytes = 0;  // activations rebuilt by a checkpointed operator's recompute
  };
  std::vector<Pass> passes(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Operator& op = s.model.operators[i];
    const OperatorChoice& c = plan.operators[i];
    Pass& p = passes[i];
    p.slice_parameters = static_cast<double>(op.parameters) / c.slices;
    p.calls = model.micro_step_collectives(c, p.slice_parameters, op.trainable);
    // The planner charges (g - 1) slice overheads per pass: spread them over the g slices.
    const double overhead = model.slice_overhead_seconds() * (c.slices - 1) / c.slices;
    p.fwd_seconds = model.compute().forward_seconds(op, samples) / c.slices + overhead;
    p.bwd_seconds = model.compute().backward_seconds(op, samples) / c.slices + overhead;
    p.kept_bytes = samples * static_cast<double>(c.checkpoint ? op.checkpoint_bytes_per_sample
                                                              : op.activation_bytes_per_sample);
    // Splitting shrinks the gathered parameter buffer, not the operator's working memory: each slice's
    // compute holds the operator's full workspace (as the planner counts it).
    p.workspace_bytes = samples * static_cast<double>(op.workspace_bytes_per_sample);
    p.recomputed_bytes = samples * static_cast<double>(op.activation_bytes_per_sample);
  }

  for (int micro = 0; micro < plan.gradient_accumulation_steps; ++micro) {
    const std::string suffix = plan.gradient_accumulation_steps > 1 ? " #" + std::to_string(micro) : "";
    // Forward, operator by operator, slice by slice.
    for (std::size_t i = 0; i < n; ++i) {
      const Operator& op = s.model.operators[i];
      const OperatorChoice& c = plan.operators[i];
      const Pass& p = passes[i];
      for (int j = 0; j < c.slices; ++j) {
        const bool sharded = j < c.sharded_slices;
        const int gather =
            sharded ? gather_task(b, p.calls, CollectiveCall::Stage::forward_gather, "AG " + op.name + suffix)
                    : -1;
        const int t = b.compute("fwd " + op.name + suffix, p.fwd_seconds, gather);
        Task& task = b.task(t);
        task.alloc_at_start[at(MemoryCategory::activations)] = p.kept_bytes / c.slices;
        task.alloc_at_start[at(MemoryCategory::workspace)] = p.workspace_bytes;
        task.free_at_end[at(MemoryCategory::workspace)] = task.alloc_at_start[at(MemoryCategory::workspace)];
        if (gather >= 0)
          task.free_at_end[at(MemoryCategory::gathered)] =
              b.task(gather).alloc_at_start[at(MemoryCategory::gathered)];
        if (gather >= 0) b.consumed_by(t);
      }
    }
    // Backward in reverse: (re)gather, recompute, backward, reduce-scatter.
    for (std::size_t r = n; r-- > 0;) {
      const Operator& op = s.model.operators[r];
      const OperatorChoice& c = plan.operators[r];
      const Pass& p = passes[r];
      for (int j = c.slices; j-- > 0;) {
        const bool sharded = j < c.sharded_slices;
        auto gather_for = [&](CollectiveCall::Stage stage) {
          return sharded ? gather_task(b, p.calls, stage, "AG " + op.name + suffix) : -1;
        };
        if (c.checkpoint) {
          const int g = gather_for(CollectiveCall::Stage::recompute_gather);
          issue_pending_reduces();  // backward prefetch: this gather is queued before the last reduce-scatter
          const int t = b.compute("recompute " + op.name + suffix, p.fwd_seconds, g);
          b.task(t).alloc_at_start[at(MemoryCategory::workspace)] = p.recomputed_bytes;
          if (g >= 0) {
            b.task(t).free_at_end[at(MemoryCategory::gathered)] =
                b.task(g).alloc_at_start[at(MemoryCategory::gathered)];
            b.consumed_by(t);
          }
        }
        const int g = gather_for(CollectiveCall::Stage::backward_gather);
        issue_pending_reduces();
        const int t = b.compute("bwd " + op.name + suffix, p.bwd_seconds, g);
        Task& task = b.task(t);
        const double grad_buffer = sharded && op.trainable && c.scopes.gradients != ShardScope::N
                                       ? bytes.gradient * p.slice_parameters
                                       : 0.0;
        task.alloc_at_start[at(MemoryCategory::workspace)] = p.workspace_bytes;
        task.alloc_at_start[at(MemoryCategory::gathered)] = grad_buffer;
        task.free_at_end[at(MemoryCategory::workspace)] =
            task.alloc_at_start[at(MemoryCategory::workspace)] + (c.checkpoint ? p.recomputed_bytes : 0.0);
        task.free_at_end[at(MemoryCategory::activations)] = p.kept_bytes / c.slices;
        if (g >= 0) {
          task.free_at_end[at(MemoryCategory::gathered)] =
              b.task(g).alloc_at_start[at(MemoryCategory::gathered)];
          b.consumed_by(t);
        }
        for (const CollectiveCall& call : p.calls) {
          if (call.stage != CollectiveCall::Stage::gradient_reduce) continue;
          pending.push_back({call, grad_buffer, t, "RS " + op.name + suffix});
        }
      }
    }
    issue_pending_reduces();
    flush();
  }
  // Once per iteration: gradient synchronisation, optimizer update, parameter rebuild, per operator.
  for (std::size_t i = 0; i < n; ++i) {
    const Operator& op = s.model.operators[i];
    const OperatorChoice& c = plan.operators[i];
    const double slice = static_cast<double>(op.parameters) / c.slices;
    const OperatorChoice replicated{
        op.name, Scopes{ShardScope::N, ShardScope::N, ShardScope::N}, false, 1, 0, c.checkpoint};
    int last_sync = -1;
    std::vector<CollectiveCall> rebuild;
    for (int j = 0; j < c.slices; ++j) {
      const OperatorChoice& used = j < c.sharded_slices ? c : replicated;
      for (const CollectiveCall& call : model.iteration_collectives(used, slice, op.trainable)) {
        if (call.stage == CollectiveCall::Stage::update_sync) {
          last_sync = b.collective("sync " + op.name, call, b.last_compute());
        } else {
          rebuild.push_back(call);
        }
      }
    }
    const MemoryBreakdown m = model.memory(i, c, plan.micro_batch);
    const int update = op.trainable ? b.compute("update " + op.name,
                                                model.compute().update_seconds(
                                                    m.parameter_bytes + m.gradient_bytes + m.optimizer_bytes),
                                                last_sync)
                                    : -1;
    for (const CollectiveCall& call : rebuild) b.collective("rebuild " + op.name, call, update);
  }
  program.samples_per_iteration = model.samples_per_iteration(plan.micro_batch);
  program.tokens_per_iteration = program.samples_per_iteration * static_cast<double>(s.model.sequence_length);
  return program;
}

}  // namespace shardscope
