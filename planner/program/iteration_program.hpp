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
#include "planner/core/scenario.hpp"
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

struct Task {
  enum class Stream { compute, comm } stream = Stream::compute;
  std::string name;                                  // e.g. "fwd layer3.mlp", "AG layer3.mlp"
  double compute_seconds = 0;                        // compute tasks
  CollectiveKind kind = CollectiveKind::all_gather;  // comm tasks
  GroupKind group = GroupKind::global;
  double total_bytes = 0;  // full buffer of the collective
  int wait_for_other =
      -1;  // index (in this rank's list) of a task on the other stream that must finish first
  MemoryBytes alloc_at_start{};  // memory taken when the task starts
  MemoryBytes free_at_end{};     // memory released when the task ends

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

struct IterationProgram {
  std::vector<Task> tasks;  // identical for every rank (data parallel): collectives rendezvous in order
  MemoryBytes resident{};   // held for the whole iteration (states + reserve)
  double samples_per_iteration = 0;
  double tokens_per_iteration = 0;
};

// Builds the program; `serial` puts every task on one stream (overlap off) so it adds up like the planner.
// `bucket_bytes` > 0 merges consecutive gradient reduce-scatters of the same group into buckets of at least
// that size (issued after the last backward they cover, as DDP/FSDP buckets do); 0 reduces each slice alone.
IterationProgram build_iteration_program(const Scenario& scenario, const Calibration& calibration,
                                         const Plan& plan, int prefetch_depth, bool serial,
                                         double bucket_bytes = 0);

}  // namespace shardscope
