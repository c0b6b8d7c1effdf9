// Builds one iteration of a plan as tasks: per micro-step forward and backward per operator and slice
// (gathers, compute, reduce-scatters, activations), then gradient sync, optimizer update, parameter rebuild.
#include "planner/program/iteration_program.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/cost/collective_calls.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/program/mesh_exchanges.hpp"

namespace shardscope {

namespace {

// The task list being built, with the two orderings every step needs: which compute task last ran
// (what a per-iteration collective waits for) and the micro-step's compute positions (every forward,
// recompute and backward compute of a slice, in program order): a gather may start once the position
// prefetch_depth + 1 before its consumer is done, so while position t runs only the buffers of positions
// t .. t + prefetch_depth can be held, whichever of them shard (README: "Memory").
class TaskList {
 public:
  TaskList(std::vector<Task>& tasks, int prefetch_depth, bool serial)
      : tasks_(tasks), prefetch_depth_(prefetch_depth), serial_(serial) {}

  int add_compute(const std::string& name, double seconds, int wait_for = -1) {
    Task task;
    task.stream = Task::Stream::compute;
    task.name = name;
    task.compute_seconds = seconds;
    task.wait_for_other = serial_ ? -1 : wait_for;
    return push(std::move(task));
  }

  int add_collective(const std::string& name, const CollectiveCall& call, int wait_for = -1) {
    Task task;
    task.stream = serial_ ? Task::Stream::compute : Task::Stream::comm;
    task.name = name;
    task.kind = call.kind;
    task.group = call.group;
    task.stage = call.stage;
    task.total_bytes = call.total_bytes;
    task.wait_for_other = serial_ ? -1 : wait_for;
    return push(std::move(task));
  }

  // Adds the all-gather of `stage` (if the calls have one) with its gathered buffer; returns its task or -1.
  // A gather may start once the compute position prefetch_depth + 1 before its consumer is done.
  int add_gather(const std::vector<CollectiveCall>& calls, CollectiveCall::Stage stage,
                 const std::string& name) {
    int gather = -1;
    for (const CollectiveCall& call : calls) {
      if (call.stage != stage) continue;
      gather = add_collective(name, call, gather_dependency());
      at(gather).allocates(MemoryCategory::gathered, call.total_bytes);
    }
    return gather;
  }

  // Adds the compute position that uses the buffer of `gather` and releases it when done (unless `keep`: a
  // later position releases it); without a gather (-1) it waits for `otherwise` instead (-1: nothing).
  int add_compute_after_gather(const std::string& name, double seconds, int gather, int otherwise = -1,
                               bool keep = false) {
    const int compute = add_compute(name, seconds, gather >= 0 ? gather : otherwise);
    if (gather >= 0 && !keep) at(compute).frees_what(at(gather));
    positions_.push_back(compute);
    return compute;
  }

  Task& at(int index) { return tasks_[static_cast<std::size_t>(index)]; }
  int last_compute() const { return last_compute_; }

 private:
  int gather_dependency() const {
    const std::size_t consumer = positions_.size();  // the gather's consumer is the next position
    const std::size_t back = static_cast<std::size_t>(prefetch_depth_) + 1;
    return consumer >= back ? positions_[consumer - back] : -1;
  }
  int push(Task task) {
    tasks_.push_back(std::move(task));
    const int index = static_cast<int>(tasks_.size()) - 1;
    if (tasks_.back().stream == Task::Stream::compute) last_compute_ = index;
    return index;
  }
  std::vector<Task>& tasks_;
  int prefetch_depth_;
  bool serial_;
  std::vector<int> positions_;  // the compute positions so far (both built micro-steps), in order
  int last_compute_ = -1;
};

// Gradient reduce-scatters on their way to the communication stream. A slice's reduce-scatter is held
// back until the next slice's first gather is queued (FSDP's backward prefetch, BACKWARD_PRE): queued in
// plain order, the next gather would wait behind a reduce-scatter that waits for the backward compute.
// Released reduce-scatters of the same kind and group are then merged into buckets of at least
// `bucket_bytes` (0: each alone), issued after the last backward they cover, as DDP/FSDP buckets are.
class GradientBucketer {
 public:
  GradientBucketer(TaskList& tasks, double bucket_bytes) : tasks_(tasks), bucket_bytes_(bucket_bytes) {}

  // Holds back the reduce-scatter of the gradients that `backward_task` produced into `buffer_bytes`; it
  // produces `gradient_bytes` of the resident gradients (the reduced shard), taken when it starts.
  void hold(const CollectiveCall& call, double buffer_bytes, double gradient_bytes, int backward_task,
            std::string name) {
    held_.push_back({call, buffer_bytes, gradient_bytes, backward_task, std::move(name)});
  }

  // The next gather is queued: the held reduce-scatters go into the bucket, which is issued when full.
  void release_held() {
    for (const Held& reduce : held_) {
      if (bucket_.bytes > 0 &&
          (bucket_.call.group != reduce.call.group || bucket_.call.kind != reduce.call.kind))
        flush();
      bucket_.call = reduce.call;
      bucket_.bytes += reduce.call.total_bytes;
      bucket_.buffer_bytes += reduce.buffer_bytes;
      bucket_.gradient_bytes += reduce.gradient_bytes;
      bucket_.after = reduce.after;
      bucket_.name = bucket_.name.empty() ? reduce.name : bucket_.name + "+";
      if (bucket_.bytes >= bucket_bytes_) flush();
    }
    held_.clear();
  }

  // Issues the bucket (if not empty) as one reduce-scatter that frees the gradient buffers it covers.
  void flush() {
    if (bucket_.bytes <= 0) return;
    CollectiveCall merged = bucket_.call;
    merged.total_bytes = bucket_.bytes;
    const int reduce = tasks_.add_collective(bucket_.name, merged, bucket_.after);
    tasks_.at(reduce).frees(MemoryCategory::gathered, bucket_.buffer_bytes);
    tasks_.at(reduce).gradients_produced_bytes = bucket_.gradient_bytes;
    last_issued_ = reduce;
    bucket_ = Bucket{};
  }

  // The reduce-scatter issued last (-1: none yet). A compute position without a gather waits for the one
  // issued before its own release_held(), as one with a gather does through it (that gather is queued
  // behind it): only the gradients released at a position are still being reduced while it runs.
  int last_issued() const { return last_issued_; }

 private:
  struct Held {
    CollectiveCall call;
    double buffer_bytes;
    double gradient_bytes;
    int after;  // the backward task that produced the gradients
    std::string name;
  };
  struct Bucket {
    CollectiveCall call{};
    double bytes = 0;           // gradients reduced
    double buffer_bytes = 0;    // gradient buffers freed once reduced
    double gradient_bytes = 0;  // reduced gradients it produces
    int after = -1;             // the last backward task covered
    std::string name;
  };
  TaskList& tasks_;
  double bucket_bytes_;
  std::vector<Held> held_;
  Bucket bucket_;
  int last_issued_ = -1;
};

// What every micro-step does for one operator, per slice, computed once.
struct OperatorWork {
  std::vector<CollectiveCall> slice_calls;  // per micro-step, of one sharded slice
  double slice_parameters = 0;
  double forward_seconds = 0;  // per slice, with its share of the slicing overhead
  double backward_seconds = 0;
  double recompute_fraction = 0;  // of the forward, run again by a checkpointed operator
  double recompute_seconds = 0;   // per slice
  PassExchanges exchanges;        // per slice (mesh_exchanges.hpp)
  std::vector<MeshExchange> recompute_exchanges;
  double kept_bytes = 0;  // activations (or checkpoint inputs) kept for backward, whole operator
  double workspace_bytes = 0;
  double recomputed_bytes = 0;       // activations rebuilt by a checkpointed operator's recompute
  double gradient_buffer_bytes = 0;  // unreduced gradients of one sharded slice (0: none reduced)
  MemoryBreakdown memory;            // the planner's memory of the operator
};

// Compute positions per micro-step: a forward and a backward per slice, and a recompute when checkpointed.
int positions_per_micro_step(const Plan& plan) {
  int positions = 0;
  for (const OperatorChoice& c : plan.operators) positions += c.slices * (c.checkpoint ? 3 : 2);
  return positions;
}

// Gathers run at most one micro-step ahead: the depth is capped at the positions of a micro-step less one,
// so that every gather of a later micro-step waits on a position of the one before (as the program
// records: a wait reaches back one micro-step at most).
int effective_prefetch_depth(const Plan& plan, int prefetch_depth) {
  return std::max(0, std::min(prefetch_depth, positions_per_micro_step(plan) - 1));
}

// Builds the program step by step: resident states, then per micro-step each operator's forward and, in
// reverse, backward, then each operator's update.
class ProgramBuilder {
 public:
  ProgramBuilder(const Scenario& scenario, const TopologyCostModel& model, const Plan& plan,
                 const ProgramOptions& options)
      : scenario_(scenario),
        model_(model),
        plan_(plan),
        tasks_(program_.tasks, effective_prefetch_depth(plan, options.prefetch_depth), options.serial),
        reduces_(tasks_, options.bucket_bytes) {
    for (std::size_t i = 0; i < plan_.operators.size(); ++i) work_.push_back(operator_work(i));
  }

  std::size_t operators() const { return work_.size(); }

  // Held for the whole iteration: model states of every operator and the runtime reserve.
  void add_resident_states() {
    for (const OperatorWork& work : work_) {
      program_.resident[index_of(MemoryCategory::parameters)] += work.memory.parameter_bytes;
      program_.resident[index_of(MemoryCategory::gradients)] += work.memory.gradient_bytes;
      program_.resident[index_of(MemoryCategory::optimizer)] += work.memory.optimizer_bytes;
      // A pipeline stage holds the activations of its other micro-batches in flight all along.
      program_.resident[index_of(MemoryCategory::activations)] +=
          (model_.in_flight_micro_batches() - 1) * work.kept_bytes;
    }
    program_.resident[index_of(MemoryCategory::reserve)] = model_.fixed_bytes();
  }

  std::size_t task_count() const { return program_.tasks.size(); }

  // Slice by slice: (gather,) forward compute that keeps its activations.
  void add_forward(std::size_t op_index) {
    const Operator& op = scenario_.model.operators[op_index];
    const OperatorChoice& choice = plan_.operators[op_index];
    const OperatorWork& work = work_[op_index];
    for (int slice = 0; slice < choice.slices; ++slice) {
      const bool sharded = slice < choice.sharded_slices;
      const int gather = sharded ? tasks_.add_gather(work.slice_calls, CollectiveCall::Stage::forward_gather,
                                                     "AG " + op.name)
                                 : -1;
      // Without a gather, the forward waits for the previous micro-step's last reduce-scatter (FSDP waits
      // for its gradient reductions at the end of backward); with one, its gather is queued behind it.
      const int forward = tasks_.add_compute_after_gather("fwd " + op.name, work.forward_seconds, gather,
                                                          reduces_.last_issued());
      describe(tasks_.at(forward), Task::Phase::forward, op_index, choice);
      tasks_.at(forward).mesh_exchanges = work.exchanges.forward;
      tasks_.at(forward)
          .allocates(MemoryCategory::activations, work.kept_bytes / choice.slices)
          .allocates(MemoryCategory::workspace, work.workspace_bytes)
          .frees(MemoryCategory::workspace, work.workspace_bytes);
    }
  }

  // Slice by slice in reverse: (re)gather, recompute, backward, and the gradient reduce-scatter held back.
  void add_backward(std::size_t op_index) {
    const Operator& op = scenario_.model.operators[op_index];
    const OperatorChoice& choice = plan_.operators[op_index];
    const OperatorWork& work = work_[op_index];
    for (int slice = choice.slices; slice-- > 0;) {
      const bool sharded = slice < choice.sharded_slices;
      auto gather_for = [&](CollectiveCall::Stage stage) {
        return sharded ? tasks_.add_gather(work.slice_calls, stage, "AG " + op.name) : -1;
      };
      // Without a backward gather (the runtime keeps the recompute's parameters), the recompute's buffer is
      // held until the backward ends.
      int held = -1;
      if (choice.checkpoint) {
        const int gather = gather_for(CollectiveCall::Stage::recompute_gather);
        const bool keep = gather >= 0 && !model_.recompute_gathers_again();
        const int reduced_before = reduces_.last_issued();
        reduces_.release_held();  // backward prefetch: this gather is queued before the last reduce-scatter
        const int recompute = tasks_.add_compute_after_gather("recompute " + op.name, work.recompute_seconds,
                                                              gather, reduced_before, keep);
        if (keep) held = gather;
        describe(tasks_.at(recompute), Task::Phase::recompute, op_index, choice);
        tasks_.at(recompute).slice_fraction *= work.recompute_fraction;
        tasks_.at(recompute).mesh_exchanges = work.recompute_exchanges;
        tasks_.at(recompute).allocates(MemoryCategory::workspace, work.recomputed_bytes);
      }
      const int gather = gather_for(CollectiveCall::Stage::backward_gather);
      const int reduced_before = reduces_.last_issued();
      reduces_.release_held();
      const int backward =
          tasks_.add_compute_after_gather("bwd " + op.name, work.backward_seconds, gather, reduced_before);
      describe(tasks_.at(backward), Task::Phase::backward, op_index, choice);
      tasks_.at(backward).mesh_exchanges = work.exchanges.backward;
      if (held >= 0) tasks_.at(backward).frees_what(tasks_.at(held));
      const double gradient_buffer = sharded ? work.gradient_buffer_bytes : 0.0;
      tasks_.at(backward)
          .allocates(MemoryCategory::workspace, work.workspace_bytes)
          .allocates(MemoryCategory::gathered, gradient_buffer)
          .frees(MemoryCategory::workspace, work.workspace_bytes + work.recomputed_bytes)
          .frees(MemoryCategory::activations, work.kept_bytes / choice.slices);
      // The slice's share of the resident gradients appears when it exists: the shard once its
      // reduce-scatter runs, or the whole gradient from the backward when nothing reduces it now.
      double produced = work.memory.gradient_bytes / choice.slices;
      for (const CollectiveCall& call : work.slice_calls) {
        if (call.stage != CollectiveCall::Stage::gradient_reduce) continue;
        reduces_.hold(call, gradient_buffer, produced, backward, "RS " + op.name);
        produced = 0;
      }
      tasks_.at(backward).gradients_produced_bytes = produced;
    }
  }

  // The micro-step's backward is done: its last reduce-scatters go out.
  void end_micro_step() {
    reduces_.release_held();
    reduces_.flush();
  }

  // Once per iteration: gradient synchronisation of every slice, optimizer update, parameter rebuild.
  void add_update(std::size_t op_index) {
    const Operator& op = scenario_.model.operators[op_index];
    if (!op.trainable) return;  // frozen: nothing to synchronise, update or rebuild
    const OperatorChoice choice = model_.acting_choice(op_index, plan_.operators[op_index]);
    const OperatorWork& work = work_[op_index];
    const OperatorChoice replicated = choice.replicated_part();
    int last_sync = -1;
    std::vector<CollectiveCall> rebuild;
    for (int slice = 0; slice < choice.slices; ++slice) {
      const OperatorChoice& used = slice < choice.sharded_slices ? choice : replicated;
      for (const CollectiveCall& call :
           iteration_collectives(used, work.slice_parameters, op.trainable, model_.state_bytes(),
                                 group_size(), op.expert_parallel)) {
        if (call.stage == CollectiveCall::Stage::update_sync) {
          last_sync = tasks_.add_collective("sync " + op.name, call, tasks_.last_compute());
        } else {
          rebuild.push_back(call);
        }
      }
    }
    const MemoryBreakdown& memory = work.memory;
    const double state_bytes = memory.parameter_bytes + memory.gradient_bytes + memory.optimizer_bytes;
    const int update =
        tasks_.add_compute("update " + op.name, model_.compute().update_seconds(state_bytes), last_sync);
    describe(tasks_.at(update), Task::Phase::update, op_index, choice);
    tasks_.at(update).slice_fraction = 1;
    tasks_.at(update).update_state_bytes = state_bytes;
    for (const CollectiveCall& call : rebuild) tasks_.add_collective("rebuild " + op.name, call, update);
  }

  IterationProgram finish() {
    program_.samples_per_iteration = model_.samples_per_iteration(plan_.micro_batch);
    program_.tokens_per_iteration =
        program_.samples_per_iteration * static_cast<double>(scenario_.model.sequence_length);
    return std::move(program_);
  }

 private:
  int group_size() const { return scenario_.training.group_size; }

  // Records what a compute task runs: `phase` of one slice of operator `op_index`.
  static void describe(Task& task, Task::Phase phase, std::size_t op_index, const OperatorChoice& choice) {
    task.phase = phase;
    task.operator_index = static_cast<int>(op_index);
    task.slice_fraction = 1.0 / choice.slices;
  }

  OperatorWork operator_work(std::size_t op_index) const {
    const Operator& op = scenario_.model.operators[op_index];
    const OperatorChoice choice = model_.acting_choice(op_index, plan_.operators[op_index]);
    const double samples = static_cast<double>(plan_.micro_batch);
    const StateBytesPerParameter& state_bytes = model_.state_bytes();
    OperatorWork work;
    work.slice_parameters = static_cast<double>(op.parameters) / choice.slices;
    work.slice_calls =
        model_.micro_step_calls(choice, work.slice_parameters, op.trainable, op.expert_parallel);
    // The planner charges (slices - 1) slice overheads per pass: spread them over the slices.
    const double overhead = model_.slice_overhead_seconds() * (choice.slices - 1) / choice.slices;
    const ComputeModel::PassSeconds passes = model_.compute().pass_seconds(op, samples, choice.slices);
    work.forward_seconds = passes.forward / choice.slices + overhead;
    work.backward_seconds = passes.backward / choice.slices + overhead;
    work.kept_bytes = samples * model_.kept_bytes_per_sample(op_index, choice);
    // Splitting shrinks the gathered parameter buffer, not the operator's working memory: each slice's
    // compute holds the operator's full workspace (as the planner counts it).
    work.workspace_bytes = samples * model_.workspace_bytes_per_sample(op);
    work.recompute_fraction = model_.recompute_fraction(op_index, choice);
    work.recompute_seconds = work.recompute_fraction * work.forward_seconds;
    work.exchanges = mesh_exchanges(model_.compute(), op, samples, choice.slices);
    work.recompute_exchanges = scaled_exchanges(work.exchanges.forward, work.recompute_fraction);
    work.recomputed_bytes = samples * model_.recomputed_bytes_per_sample(op_index, choice);
    work.gradient_buffer_bytes = op.trainable && choice.scopes.gradients != ShardScope::N
                                     ? state_bytes.gradient * work.slice_parameters
                                     : 0.0;
    work.memory = model_.memory(op_index, choice, plan_.micro_batch);
    return work;
  }

  const Scenario& scenario_;
  const TopologyCostModel& model_;
  const Plan& plan_;
  IterationProgram program_;
  TaskList tasks_;
  GradientBucketer reduces_;
  std::vector<OperatorWork> work_;
};

// Keeps one micro-step of a program built with `built` (1 or 2) micro-steps of `length` tasks each: the
// second when there are two, as only it has the waits on the micro-step before (gathers prefetched while
// the previous micro-step computes); the first differs from it only by not having them.
IterationProgram keep_one_micro_step(IterationProgram program, std::size_t length, int built,
                                     int micro_steps) {
  program.step_tasks = length;
  program.micro_steps = micro_steps;
  if (built <= 1) return program;
  std::vector<Task> tasks(program.tasks.begin() + static_cast<std::ptrdiff_t>(length), program.tasks.end());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    Task& task = tasks[i];
    if (task.wait_for_other < 0) continue;
    if (static_cast<std::size_t>(task.wait_for_other) < length) {
      if (i >= length) throw std::logic_error("iteration program: an update waits on the first micro-step");
      task.waits_on_previous_step = true;
    } else {
      task.wait_for_other -= static_cast<int>(length);
    }
  }
  program.tasks = std::move(tasks);
  return program;
}

}  // namespace

std::int64_t executed_tasks(const IterationProgram& program) {
  const auto step = static_cast<std::int64_t>(program.step_tasks);
  return step * program.micro_steps + static_cast<std::int64_t>(program.tasks.size()) - step;
}

std::string task_name(const IterationProgram& program, std::size_t index, int micro_step) {
  const std::string& name = program.tasks[index].name;
  if (program.micro_steps <= 1 || index >= program.step_tasks) return name;
  return name + " #" + std::to_string(micro_step);
}

ProgramOptions program_options(const ExecutionOptions& execution) {
  return {execution.prefetch_depth, !execution.overlap, execution.bucket_bytes};
}

IterationProgram build_iteration_program(const ValidScenario& scenario, const Calibration& calibration,
                                         const Plan& plan, const ProgramOptions& options) {
  if (scenario.planner.cost_model != CostModelKind::topology) {
    throw InputError(
        scenario.source_file, 0, "planner.cost_model",
        "the simulator needs the topology cost model (the paper model has no cluster to simulate)");
  }
  if (plan.operators.size() != scenario.model.operators.size()) {
    throw InputError(scenario.source_file, 0, "plan.operators",
                     "the plan does not match the model's operators");
  }
  CostModelOptions cost_options;
  cost_options.accumulation_steps = plan.gradient_accumulation_steps;
  const TopologyCostModel model(scenario, calibration, cost_options);
  ProgramBuilder builder(scenario, model, plan, options);
  builder.add_resident_states();
  // Two micro-steps show every dependency (within one, and on the one before); the rest repeat the second.
  const int built = std::min(plan.gradient_accumulation_steps, 2);
  std::size_t length = 0;
  for (int micro_step = 0; micro_step < built; ++micro_step) {
    for (std::size_t i = 0; i < builder.operators(); ++i) builder.add_forward(i);
    for (std::size_t i = builder.operators(); i-- > 0;) builder.add_backward(i);
    builder.end_micro_step();
    if (micro_step == 0) length = builder.task_count();
  }
  for (std::size_t i = 0; i < builder.operators(); ++i) builder.add_update(i);
  return keep_one_micro_step(builder.finish(), length, built, plan.gradient_accumulation_steps);
}

}  // namespace shardscope
