// SearchSpace: which per-operator choices a strategy may use; named baselines (DDP ... PaRO, OSDP) as spaces.
#pragma once

#include <string>
#include <vector>

#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope {

struct SearchSpace {
  std::string name;
  std::vector<Scopes> scopes;                  // scopes a sharded slice may use
  bool secondary_parameter_partition = false;  // ZeRO++ hpZ
  std::vector<int> granularities{1};           // slice counts g
  bool partial = true;                  // k may be 0..g (else only k = g, or k = 0 when NNN is allowed)
  std::vector<bool> checkpoint{false};  // checkpointing values an operator may take
  bool uniform = false;                 // whole-model strategy: every operator takes the same choice
};

// The 14 PaRO scope combinations (PaRO Table 1: the optimizer scope is at least as fine as P and G).
std::vector<Scopes> paro_scopes();
std::vector<bool> checkpoint_options(CheckpointPolicy policy);

// The product's own space: per operator any PaRO scope, any slice granularity and k, checkpointing.
SearchSpace full_space(const TrainingConfig& training);
// OSDP: per operator DP (NNN) or ZDP (GGG), with or without operator splitting.
SearchSpace osdp_space(const TrainingConfig& training, bool splitting);
// Whole-model baselines: DDP, ZeRO-1, ZeRO-2, ZeRO-3 (= FSDP), MiCS (= FSDP hybrid), ZeRO++, PaRO-XYZ x 14.
std::vector<SearchSpace> baseline_spaces(const TrainingConfig& training);
// A baseline by name (case-insensitive: "fsdp", "zero-2", "paro-IIG", "osdp", "shardscope"); throws on
// unknown.
SearchSpace space_by_name(const std::string& name, const TrainingConfig& training);

// Every distinct choice for one operator in a space (k = 0 appears once, as plain DP).
std::vector<OperatorChoice> enumerate_choices(const SearchSpace& space, const Operator& op);

}  // namespace shardscope
