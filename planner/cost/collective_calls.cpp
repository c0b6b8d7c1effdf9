// PaRO Table 3 as call lists: which all-gathers, reduce-scatters and all-reduces one slice makes, over
// which group, per micro-step and once per iteration.
#include "planner/cost/collective_calls.hpp"

namespace shardscope {
namespace {

using CK = CollectiveKind;
using Stage = CollectiveCall::Stage;

GroupKind group_of(ShardScope scope) { return scope == ShardScope::I ? GroupKind::intra : GroupKind::global; }

// An expert-parallel operator's calls: its G scope's group is the inter group (the GPUs with its experts).
std::vector<CollectiveCall> on_expert_replicas(std::vector<CollectiveCall> calls) {
  for (CollectiveCall& call : calls) {
    if (call.group == GroupKind::global) call.group = GroupKind::inter;
  }
  return calls;
}

}  // namespace

OperatorChoice expert_parallel_choice(OperatorChoice choice) {
  const auto acting = [](ShardScope scope) { return scope == ShardScope::I ? ShardScope::N : scope; };
  choice.scopes = {acting(choice.scopes.parameters), acting(choice.scopes.gradients),
                   acting(choice.scopes.optimizer)};
  choice.secondary_parameter_partition = false;
  return choice;
}

std::vector<CollectiveCall> micro_step_collectives(const OperatorChoice& choice, double slice_parameters,
                                                   bool trainable, const StateBytesPerParameter& state_bytes,
                                                   bool recompute_gathers_again, bool expert_parallel) {
  if (expert_parallel) {
    return on_expert_replicas(micro_step_collectives(expert_parallel_choice(choice), slice_parameters,
                                                     trainable, state_bytes, recompute_gathers_again));
  }
  const Scopes& scopes = choice.scopes;
  const double parameter_bytes = state_bytes.parameter * slice_parameters;
  const double gradient_bytes = state_bytes.reduce * slice_parameters;  // as the reduction moves them
  std::vector<CollectiveCall> calls;
  // Parameter gathers: forward, (recompute of a checkpointed operator), backward.
  if (scopes.parameters != ShardScope::N) {
    const bool hpz = choice.secondary_parameter_partition && scopes.parameters == ShardScope::G;
    // ZeRO++ hpZ: forward gathers globally, later gathers come from the intra-group secondary shard.
    const GroupKind first = group_of(scopes.parameters);
    const GroupKind later = hpz ? GroupKind::intra : first;
    calls.push_back({Stage::forward_gather, CK::all_gather, first, parameter_bytes});
    if (choice.checkpoint) calls.push_back({Stage::recompute_gather, CK::all_gather, later, parameter_bytes});
    // A framework that keeps the recompute's gathered parameters for the backward gathers once for both.
    if (!choice.checkpoint || recompute_gathers_again) {
      calls.push_back({Stage::backward_gather, CK::all_gather, later, parameter_bytes});
    }
  }
  // Gradients: sharded scopes reduce-scatter after every micro-step's backward.
  if (trainable && scopes.gradients != ShardScope::N) {
    calls.push_back({Stage::gradient_reduce, CK::reduce_scatter, group_of(scopes.gradients), gradient_bytes});
  }
  return calls;
}

std::vector<CollectiveCall> iteration_collectives(const OperatorChoice& choice, double slice_parameters,
                                                  bool trainable, const StateBytesPerParameter& state_bytes,
                                                  int group_size, bool expert_parallel) {
  if (expert_parallel) {
    return on_expert_replicas(iteration_collectives(expert_parallel_choice(choice), slice_parameters,
                                                    trainable, state_bytes, group_size));
  }
  std::vector<CollectiveCall> calls;
  if (!trainable) return calls;
  const double parameter_bytes = state_bytes.parameter * slice_parameters;
  const double gradient_bytes = state_bytes.reduce * slice_parameters;  // as the reduction moves them
  const ShardScope parameters = choice.scopes.parameters;
  const ShardScope gradients = choice.scopes.gradients;
  const ShardScope optimizer = choice.scopes.optimizer;
  // Gradient synchronisation once the micro-steps are accumulated (PaRO Table 3, "Update" R-S/A-R).
  if (gradients == ShardScope::N) {
    if (optimizer == ShardScope::N || optimizer == ShardScope::G) {
      calls.push_back(
          {Stage::update_sync, CK::all_reduce, GroupKind::global, gradient_bytes});  // DDP, ZeRO-1
    } else {
      calls.push_back({Stage::update_sync, CK::reduce_scatter, GroupKind::intra, gradient_bytes});
      calls.push_back({Stage::update_sync, CK::all_reduce, GroupKind::inter, gradient_bytes / group_size});
    }
  } else if (gradients == ShardScope::I) {
    calls.push_back({Stage::update_sync, optimizer == ShardScope::I ? CK::all_reduce : CK::reduce_scatter,
                     GroupKind::inter, gradient_bytes / group_size});
  }
  // Rebuilding the parameter scope from the updated optimizer shard ("Update" A-G(P)).
  if (parameters == ShardScope::N && optimizer == ShardScope::I) {
    calls.push_back({Stage::update_rebuild, CK::all_gather, GroupKind::intra, parameter_bytes});
  } else if (parameters == ShardScope::N && optimizer == ShardScope::G) {
    if (gradients == ShardScope::I) {  // PaRO-NIG: inter-group then intra-group
      calls.push_back(
          {Stage::update_rebuild, CK::all_gather, GroupKind::inter, parameter_bytes / group_size});
      calls.push_back({Stage::update_rebuild, CK::all_gather, GroupKind::intra, parameter_bytes});
    } else {
      calls.push_back({Stage::update_rebuild, CK::all_gather, GroupKind::global, parameter_bytes});
    }
  } else if (parameters == ShardScope::I && optimizer == ShardScope::G) {
    calls.push_back({Stage::update_rebuild, CK::all_gather, GroupKind::inter, parameter_bytes / group_size});
  }
  return calls;
}

double total_seconds(const CollectiveCost& cost, const std::vector<CollectiveCall>& calls) {
  double seconds = 0;
  for (const CollectiveCall& call : calls) seconds += cost.seconds(call.kind, call.group, call.total_bytes);
  return seconds;
}

}  // namespace shardscope
