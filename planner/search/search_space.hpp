// SearchSpace: which per-operator choices a strategy may use; named baselines (DDP ... PaRO, OSDP) as spaces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
#include "planner/core/strategy_lookup.hpp"
#include "planner/search/operator_pin.hpp"

namespace shardscope {

struct SearchSpace {
  std::string name;
  std::vector<Scopes> scopes;                  // scopes a sharded slice may use
  bool secondary_parameter_partition = false;  // ZeRO++ hpZ
  std::vector<int> granularities{1};           // slice counts g
  bool partial = true;                  // k may be 0..g (else only k = g, or k = 0 when NNN is allowed)
  std::vector<bool> checkpoint{false};  // checkpointing values an operator may take
  // A policy that decides per operator (selective, layers) and its layer step: the operator's own values
  // (checkpoint_options(policy, op, every)) replace `checkpoint`.
  CheckpointPolicy operator_policy = CheckpointPolicy::search;
  int checkpoint_every = 2;
  // Every operator takes the same choice (a whole-model strategy with one checkpointing value).
  bool uniform = false;
  std::vector<OperatorPin> pins;  // per-operator constraints (a pinned operator keeps only what they admit)
};

// The 14 PaRO scope combinations (PaRO Table 1: the optimizer scope is at least as fine as P and G).
std::vector<Scopes> paro_scopes();
std::vector<bool> checkpoint_options(CheckpointPolicy policy);
// Whether the policy fixes each operator's checkpointing by the operator (selective, layers).
bool decides_per_operator(CheckpointPolicy policy);
// The values `op` may take: as the policy's, but under selective an operator that recomputes nothing
// (embedding, head) is not checkpointed, and under layers only the operators of layers `every`, 2 x `every`
// ... (counted from 1) are.
std::vector<bool> checkpoint_options(CheckpointPolicy policy, const Operator& op, int every = 2);

// The product's own space: per operator any PaRO scope, any slice granularity and k, checkpointing.
SearchSpace full_space(const TrainingConfig& training);
// Each scope with its parameters and gradients whole (GGG -> NNG, IIG -> NNG, NIG -> NNG; duplicates dropped;
// no ZeRO++ secondary partition): how a pipeline stage runs a space under a runtime that keeps them whole
// through the step (stage_shards_optimizer_only): FSDP's layout becomes ZeRO-1's.
void keep_optimizer_sharding_only(SearchSpace& space);
// OSDP: per operator DP (NNN) or ZDP (GGG), with or without operator splitting.
SearchSpace osdp_space(const TrainingConfig& training, bool splitting);
// One entry of the strategy registry, the single list of strategy names that `--strategy`, `plan`'s
// baselines, `inspect` and help texts iterate.
struct Strategy {
  enum class Shape { full, whole_model, osdp, osdp_no_split };
  std::string name;                       // canonical spelling (plan JSON, tables)
  std::string description;                // one line for help texts and GUI lists
  std::vector<std::string> aliases = {};  // other accepted spellings
  Shape shape = Shape::whole_model;
  Scopes scopes = {};    // whole_model: every operator's scopes
  bool hpz = false;      // whole_model: ZeRO++ secondary parameter partition
  bool baseline = true;  // compared against by `plan`
  bool classic = false;  // a classic ZeRO stage (DDP, ZeRO-1/2/3): inspect's model-state table
  // No collective library: every strategy of a comparison runs the scenario's (planned_collectives).

  SearchSpace space(const TrainingConfig& training) const;
};

// The registry, in the order `plan` reports baselines: shardscope, ddp, zero-1, zero-2, fsdp (zero-3), mics,
// zero++, paro-XYZ x 14, osdp-no-split, osdp.
const std::vector<Strategy>& strategies();
std::vector<std::string> strategy_names();  // canonical names, registry order
// By name or alias, ignoring case and '-' vs '_' ("FSDP", "zero-3", "FULL_SHARD", "paro-iig"); nullptr when
// unknown.
const Strategy* find_strategy(std::string_view name);
// "'hsdp' is shardscope's mics: MiCS (...)" when `typed` is an alias (a framework's name for a registry
// entry), else "".
std::string strategy_alias_note(const std::string& typed);
// "unknown strategy 'x'; did you mean 'y'?" (names and aliases) or "...; known: a, b, c".
std::string unknown_strategy_message(const std::string& name);
// The registry as a lookup for parsers below this layer (sweep grids): find_strategy's name and the message
// above.
StrategyLookup strategy_lookup();

// Whole-model and OSDP baselines (every registry entry marked `baseline`).
std::vector<SearchSpace> baseline_spaces(const TrainingConfig& training);
// A strategy's space by name or alias; throws std::invalid_argument on an unknown name, suggesting the
// nearest or listing the known ones.
SearchSpace space_by_name(const std::string& name, const TrainingConfig& training);

// Every distinct choice for one operator in a space (k = 0 appears once, as plain DP).
std::vector<OperatorChoice> enumerate_choices(const SearchSpace& space, const Operator& op);
// How many choices enumerate_choices lists, without building them (a sweep's cost estimate per point).
std::int64_t count_choices(const SearchSpace& space, const Operator& op);

}  // namespace shardscope
