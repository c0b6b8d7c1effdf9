// IterationProgram: one training iteration of a plan as an ordered task list per GPU (compute and
// collectives with their memory effects), built from the planner's cost model; the simulator executes it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/names.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/collective_calls.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope {

enum class MemoryCategory { parameters, gradients, optimizer, activations, gathered, workspace, reserve };
constexpr std::size_t kMemoryCategories = 7;

template <>
struct EnumNames<MemoryCategory> {
  static constexpr NameEntry<MemoryCategory> table[] = {
      {MemoryCategory::parameters, "parameters", "working parameters held between uses"},
      {MemoryCategory::gradients, "gradients", "gradients held until the update"},
      {MemoryCategory::optimizer, "optimizer", "optimizer state"},
      {MemoryCategory::activations, "activations", "activations kept for backward"},
      {MemoryCategory::gathered, "gathered", "gathered parameters and unreduced gradients in flight"},
      {MemoryCategory::workspace, "workspace", "workspace and recomputed activations while an operator runs"},
      {MemoryCategory::reserve, "reserve", "runtime reserve (CUDA context, allocator, NCCL buffers)"},
  };
};
static_assert(std::size(EnumNames<MemoryCategory>::table) == kMemoryCategories);
using MemoryBytes = std::array<double, kMemoryCategories>;
constexpr std::size_t index_of(MemoryCategory category) { return static_cast<std::size_t>(category); }

// A mesh collective run inside a compute task (an operator of a model sliced by a mesh: its tensor-, context-
// or expert-parallel collectives, Operator::tensor_collectives), its seconds part of the task's
// compute_seconds as the planner prices them. An executor that runs them apart (the simulator's flows) runs
// the blocking `before` ones, then the kernels (the task's compute_seconds less every blocking exchange's)
// with the overlapped ones one after another beside them, then the other blocking ones.
struct MeshExchange {
  MeshAxis axis = MeshAxis::tensor;
  CollectiveKind kind = CollectiveKind::all_reduce;  // not read for an all-to-all
  bool all_to_all = false;
  bool overlapped = false;     // beside the kernels (ring attention's K/V exchange), not between them
  bool before = false;         // blocking: before the kernels (an all-gather, a dispatch), else after them
  double bytes = 0;            // a rank's whole buffer, for this task's share of the operator's pass
  double seconds = 0;          // as priced, alone on its group
  double latency_seconds = 0;  // of `seconds`, the part that does not scale with the bytes
  int group_ranks = 0;         // its group: consecutive data-parallel ranks (0: inside one, tensor-parallel)
  // Whether the simulator runs it as flows among its group (an expert-parallel all-to-all as pair flows, of
  // groups of at most `pair_ranks_limit` ranks; a context-parallel exchange as a ring; each with a bandwidth
  // term among more than one rank); the others it times as priced (a tensor-parallel group sits inside one
  // data-parallel rank of its platform; a larger all-to-all's g(g - 1) flows per group would swamp it).
  bool runs_as_flows(int pair_ranks_limit) const {
    const bool flows = all_to_all ? group_ranks <= pair_ranks_limit : axis == MeshAxis::context;
    return flows && group_ranks > 1 && bytes > 0 && seconds > latency_seconds;
  }
};

struct Task {
  enum class Stream { compute, comm } stream = Stream::compute;
  // What a compute task runs, so that an executor (validate/) can run the operator's own work: the forward,
  // recompute or backward of `slice_fraction` of model operator `operator_index` (its GEMMs, the output
  // dimension cut to the fraction), or the optimizer update over `update_state_bytes` of model states.
  enum class Phase { forward, recompute, backward, update } phase = Phase::forward;
  std::string name;                          // e.g. "fwd layer3.mlp", "AG layer3.mlp"
  double compute_seconds = 0;                // compute tasks
  int operator_index = -1;                   // compute tasks: the model operator (-1: none)
  double slice_fraction = 1;                 // compute tasks: the part of the operator's work (1 / slices)
  double update_state_bytes = 0;             // update tasks: the owned model-state bytes read and written
  std::vector<MeshExchange> mesh_exchanges;  // compute tasks of a mesh-sliced operator, in their order
  CollectiveKind kind = CollectiveKind::all_gather;  // comm tasks
  GroupKind group = GroupKind::global;
  CollectiveCall::Stage stage = CollectiveCall::Stage::forward_gather;  // comm tasks: what it is for
  double total_bytes = 0;                                               // full buffer of the collective
  // Position (in the program's task list) of a task on the other stream that must finish first (-1: none).
  // From a micro-step task: that position in the same micro-step, or with waits_on_previous_step in the
  // micro-step before (none in the first); from an update task: a micro-step position means the last
  // micro-step's task.
  int wait_for_other = -1;
  bool waits_on_previous_step = false;
  MemoryBytes alloc_at_start{};  // memory taken when the task starts
  MemoryBytes free_at_end{};     // memory released when the task ends
  // The part of the program's resident gradients this task produces: a reduce-scatter its shard (taken as
  // it starts, its output), a backward whose gradients nothing reduces in the micro-step the whole of them.
  // A framework allocates them when the first micro-step makes them and keeps them to the update (and the
  // allocator their pool reserved from the iteration before): program_allocated_peak_bytes counts them from
  // there, the reserved peak all iteration.
  double gradients_produced_bytes = 0;

  // Memory effects, so that what a task takes and what a later one gives back read as a pair.
  Task& allocates(MemoryCategory category, double bytes) {
    alloc_at_start[index_of(category)] += bytes;
    return *this;
  }
  Task& frees(MemoryCategory category, double bytes) {
    free_at_end[index_of(category)] += bytes;
    return *this;
  }
  // Releases, when this task ends, everything `other` took when it started.
  Task& frees_what(const Task& other) {
    for (std::size_t c = 0; c < kMemoryCategories; ++c) free_at_end[c] += other.alloc_at_start[c];
    return *this;
  }
};

template <>
struct EnumNames<Task::Phase> {
  static constexpr NameEntry<Task::Phase> table[] = {
      {Task::Phase::forward, "forward", "an operator's forward products"},
      {Task::Phase::recompute, "recompute", "a checkpointed operator's forward, run again for backward"},
      {Task::Phase::backward, "backward", "an operator's data- and weight-gradient products"},
      {Task::Phase::update, "update", "the optimizer update of the rank's model states"},
  };
};

// Above this many micro-steps the planner's schedule and the simulator stop at a steady state (micro-steps
// that repeat the one before exactly) and add the rest instead of running them.
inline constexpr int kSteadyStateAboveSteps = 64;

// Every micro-step of gradient accumulation runs the same tasks, so the program holds one micro-step and a
// count, not micro_steps copies: 2^20 micro-steps cost no more memory than one.
struct IterationProgram {
  // Identical for every rank (data parallel): collectives rendezvous in order. The first step_tasks are one
  // micro-step, run micro_steps times; the rest run once after the last (update, sync, rebuild).
  std::vector<Task> tasks;
  std::size_t step_tasks = 0;
  int micro_steps = 1;
  MemoryBytes resident{};  // held for the whole iteration (states + reserve)
  double samples_per_iteration = 0;
  double tokens_per_iteration = 0;
};

// Tasks the iteration executes: micro_steps x step_tasks + the update tasks.
std::int64_t executed_tasks(const IterationProgram& program);

// The name of task `index` in micro-step `micro_step`: " #k" is added when there are several.
std::string task_name(const IterationProgram& program, std::size_t index, int micro_step);

// How the program runs its tasks.
struct ProgramOptions {
  int prefetch_depth = 1;  // gathers in flight beyond the current one
  bool serial = false;     // every task on one stream (overlap off), so it adds up like the planner
  // > 0: consecutive gradient reduce-scatters of the same group merge into buckets of at least this size
  // (issued after the last backward they cover, as DDP/FSDP buckets do); 0 reduces each slice alone.
  double bucket_bytes = 0;
};

// The scenario's execution options as program options (serial = overlap off).
ProgramOptions program_options(const ExecutionOptions& execution);

// Builds the program. Throws InputError when the scenario prices with the paper model or the plan is not of
// its operators.
IterationProgram build_iteration_program(const ValidScenario& scenario, const Calibration& calibration,
                                         const Plan& plan, const ProgramOptions& options);

}  // namespace shardscope
