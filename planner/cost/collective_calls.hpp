// The collectives each sharding choice makes for one slice (PaRO Table 3): the cost model prices these
// lists and the iteration program orders them into tasks, so both read this one definition.
#pragma once

#include <vector>

#include "planner/core/plan.hpp"
#include "planner/core/training_config.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope {

// One collective the plan executes for one sharded slice, with the stage it belongs to.
struct CollectiveCall {
  enum class Stage {
    forward_gather,
    recompute_gather,
    backward_gather,
    gradient_reduce,
    update_sync,
    update_rebuild
  };
  Stage stage;
  CollectiveKind kind;
  GroupKind group;
  double total_bytes;
};

template <>
struct EnumNames<CollectiveCall::Stage> {
  static constexpr NameEntry<CollectiveCall::Stage> table[] = {
      {CollectiveCall::Stage::forward_gather, "forward-gather",
       "parameters gathered for an operator's forward"},
      {CollectiveCall::Stage::recompute_gather, "recompute-gather",
       "parameters gathered again for a checkpointed operator's recompute"},
      {CollectiveCall::Stage::backward_gather, "backward-gather", "parameters gathered for the backward"},
      {CollectiveCall::Stage::gradient_reduce, "gradient-reduce", "gradients reduced every micro-step"},
      {CollectiveCall::Stage::update_sync, "update-sync", "gradients synchronised once before the update"},
      {CollectiveCall::Stage::update_rebuild, "update-rebuild",
       "parameters rebuilt from the updated optimizer shards"},
  };
};

// An expert-parallel operator's choice as it acts (Operator::expert_parallel, mesh.hpp): the GPUs of its
// group (PaRO's) hold different experts, so an I scope is N and there is no intra-group secondary
// partition; its G scope shards over the GPUs holding the same experts, the inter group.
OperatorChoice expert_parallel_choice(OperatorChoice choice);

// Every micro-step, for one slice of `slice_parameters` kept with `choice`'s scopes: the parameter
// all-gathers for forward, (recompute of a checkpointed operator) and backward, then the gradient
// reduce-scatter of a sharded gradient scope. Without `recompute_gathers_again` (RuntimeProfile) a
// checkpointed operator's recompute gather also serves its backward: no backward gather. An expert-parallel
// operator's calls are those of expert_parallel_choice, on the inter group.
std::vector<CollectiveCall> micro_step_collectives(const OperatorChoice& choice, double slice_parameters,
                                                   bool trainable, const StateBytesPerParameter& state_bytes,
                                                   bool recompute_gathers_again = true,
                                                   bool expert_parallel = false);

// Once per iteration, for the same slice: the gradient synchronisation once the micro-steps are
// accumulated, then the rebuild of the parameter scope from the updated optimizer shard. `group_size` is
// M, the GPUs of one group. Expert-parallel operators as above.
std::vector<CollectiveCall> iteration_collectives(const OperatorChoice& choice, double slice_parameters,
                                                  bool trainable, const StateBytesPerParameter& state_bytes,
                                                  int group_size, bool expert_parallel = false);

// Seconds of a list of calls executed one after the other.
double total_seconds(const CollectiveCost& cost, const std::vector<CollectiveCall>& calls);

}  // namespace shardscope
