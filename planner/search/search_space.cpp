// Search spaces of the planner and of every baseline strategy, and per-operator choice enumeration.
#include "planner/search/search_space.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <stdexcept>

#include "planner/core/names.hpp"
#include "planner/cost/collective_calls.hpp"

namespace shardscope {
namespace {

constexpr ShardScope N = ShardScope::N, I = ShardScope::I, G = ShardScope::G;

int fineness(ShardScope s) { return s == N ? 0 : s == I ? 1 : 2; }

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

void set_checkpointing(SearchSpace& s, const TrainingConfig& t) {
  s.checkpoint = checkpoint_options(t.checkpointing);
  s.operator_policy = t.checkpointing;
  s.checkpoint_every = t.checkpoint_every;
}

SearchSpace whole_model(const std::string& name, Scopes scopes, const TrainingConfig& t, bool hpz = false) {
  SearchSpace s;
  s.name = name;
  s.scopes = {scopes};
  s.secondary_parameter_partition = hpz;
  s.granularities = {1};
  s.partial = false;
  set_checkpointing(s, t);
  // One sharding for every operator; under `search` each operator still chooses whether it is checkpointed,
  // as every framework offers (PyTorch's checkpoint wrapper and DeepSpeed's checkpointing wrap any module),
  // so that a comparison with the planner's plan measures sharding, not checkpointing. The choices of an
  // operator then differ only in checkpointing, which the per-operator search picks exactly.
  s.uniform = s.checkpoint.size() == 1;
  return s;
}

}  // namespace

std::vector<Scopes> paro_scopes() {
  std::vector<Scopes> out;
  // G before I: when a group spans every GPU the two cost the same and the ZeRO names win the tie.
  const ShardScope all[] = {N, G, I};
  for (ShardScope p : all) {
    for (ShardScope g : all) {
      for (ShardScope os : all) {
        if (fineness(os) >= fineness(p) && fineness(os) >= fineness(g)) out.push_back({p, g, os});
      }
    }
  }
  return out;
}

std::vector<bool> checkpoint_options(CheckpointPolicy policy) {
  switch (policy) {
    case CheckpointPolicy::none:
      return {false};
    case CheckpointPolicy::all:
      return {true};
    case CheckpointPolicy::search:
      return {false, true};
    case CheckpointPolicy::selective:
    case CheckpointPolicy::layers:
      return {true};  // one value per operator (checkpoint_options(policy, op, every))
  }
  return {false};
}

bool decides_per_operator(CheckpointPolicy policy) {
  return policy == CheckpointPolicy::selective || policy == CheckpointPolicy::layers;
}

std::vector<bool> checkpoint_options(CheckpointPolicy policy, const Operator& op, int every) {
  // Selective checkpointing recomputes nothing of an embedding or head: they keep everything, unmarked.
  if (policy == CheckpointPolicy::selective && op.selective_recompute_flops_per_sample == 0) return {false};
  // torchtitan's layer option counts the blocks it wraps from 1 and checkpoints every `every`-th.
  if (policy == CheckpointPolicy::layers) return {op.layer >= 0 && (op.layer + 1) % std::max(1, every) == 0};
  return checkpoint_options(policy);
}

SearchSpace full_space(const TrainingConfig& t) {
  SearchSpace s;
  s.name = "shardscope";
  s.scopes = paro_scopes();
  s.granularities = t.slice_granularities;
  set_checkpointing(s, t);
  return s;
}

void keep_optimizer_sharding_only(SearchSpace& space) {
  std::vector<Scopes> kept;
  for (const Scopes& s : space.scopes) {
    const Scopes whole{N, N, s.optimizer};
    const bool seen = std::any_of(kept.begin(), kept.end(),
                                  [&](const Scopes& k) { return k.optimizer == whole.optimizer; });
    if (!seen) kept.push_back(whole);
  }
  space.scopes = std::move(kept);
  space.secondary_parameter_partition = false;
}

SearchSpace osdp_space(const TrainingConfig& t, bool splitting) {
  SearchSpace s;
  s.name = splitting ? "osdp" : "osdp-no-split";
  s.scopes = {{N, N, N}, {G, G, G}};
  s.granularities = splitting ? t.slice_granularities : std::vector<int>{1};
  set_checkpointing(s, t);
  return s;
}

SearchSpace Strategy::space(const TrainingConfig& t) const {
  switch (shape) {
    case Shape::full:
      return full_space(t);
    case Shape::osdp:
      return osdp_space(t, true);
    case Shape::osdp_no_split:
      return osdp_space(t, false);
    case Shape::whole_model:
      break;
  }
  return whole_model(name, scopes, t, hpz);
}

namespace {

// The registry as data, in its order; fields left out keep Strategy's defaults (a whole-model baseline).
// Aliases are the names users type for the same layout: PyTorch FSDP's ShardingStrategy (NO_SHARD,
// SHARD_GRAD_OP, FULL_SHARD, HYBRID_SHARD, _HYBRID_SHARD_ZERO2), FSDP2's fully_shard and HSDP, DeepSpeed's
// ZeRO stages 0-3 and ZeRO++'s hpZ; case and '-'/'_' do not matter. SHARD_GRAD_OP keeps its parameters
// sharded between iterations only, so ZeRO-2 (NGG) is its closest layout.
// The PaRO family goes between the named strategies and OSDP.
const Strategy kNamedStrategies[] = {
    {.name = "shardscope",
     .description = "per operator any PaRO scope, slice count and checkpointing (the planner's own space)",
     .shape = Strategy::Shape::full,
     .baseline = false},
    {.name = "ddp",
     .description = "DDP: every state replicated (NNN)",
     .aliases = {"no_shard", "stage-0"},
     .scopes = {N, N, N},
     .classic = true},
    {.name = "zero-1",
     .description = "ZeRO-1: optimizer state sharded over all GPUs (NNG)",
     .aliases = {"zero1", "stage-1"},
     .scopes = {N, N, G},
     .classic = true},
    {.name = "zero-2",
     .description = "ZeRO-2: gradients and optimizer state sharded over all GPUs (NGG)",
     .aliases = {"zero2", "stage-2", "shard_grad_op"},
     .scopes = {N, G, G},
     .classic = true},
    {.name = "fsdp",
     .description = "FSDP = ZeRO-3: every state sharded over all GPUs (GGG)",
     .aliases = {"zero-3", "zero3", "stage-3", "full_shard", "fully_shard"},
     .scopes = {G, G, G},
     .classic = true},
    {.name = "mics",
     .description = "MiCS (FSDP hybrid shard): every state sharded inside a group (III)",
     .aliases = {"hsdp", "hybrid_shard"},
     .scopes = {I, I, I}},
    {.name = "zero++",
     .description = "ZeRO++: GGG with a secondary parameter copy sharded inside each group (hpZ)",
     .aliases = {"zeropp", "hpz"},
     .scopes = {G, G, G},
     .hpz = true},
};

const Strategy kOsdpStrategies[] = {
    {.name = "osdp-no-split",
     .description = "OSDP without operator splitting: per operator DP (NNN) or ZDP (GGG)",
     .shape = Strategy::Shape::osdp_no_split},
    {.name = "osdp",
     .description = "OSDP: per operator DP or ZDP, with operator splitting",
     .shape = Strategy::Shape::osdp},
};

// PaRO's whole-model strategy of one scope combination.
// NII is PyTorch FSDP's _HYBRID_SHARD_ZERO2 (gradients and optimizer state sharded inside a group).
Strategy paro_strategy(const Scopes& scopes) {
  return {.name = "paro-" + scopes.name(),
          .description = "PaRO-" + scopes.name() + ": parameter, gradient and optimizer scopes " +
                         scopes.name() + " (N replicated, I in a group, G over all GPUs)",
          .aliases = scopes.name() == "NII" ? std::vector<std::string>{"hybrid_shard_zero2"}
                                            : std::vector<std::string>{},
          .scopes = scopes};
}

}  // namespace

const std::vector<Strategy>& strategies() {
  static const std::vector<Strategy> registry = [] {
    std::vector<Strategy> out(std::begin(kNamedStrategies), std::end(kNamedStrategies));
    for (const Scopes& s : paro_scopes()) out.push_back(paro_strategy(s));
    out.insert(out.end(), std::begin(kOsdpStrategies), std::end(kOsdpStrategies));
    return out;
  }();
  return registry;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const Strategy& s : strategies()) out.push_back(s.name);
  return out;
}

namespace {

// A spelling as the registry compares it: lower case, '_' as '-', without leading separators
// ("_HYBRID_SHARD_ZERO2" is "hybrid-shard-zero2").
std::string spelling_key(std::string_view name) {
  std::string key = lower(std::string(name));
  std::replace(key.begin(), key.end(), '_', '-');
  key.erase(0, std::min(key.find_first_not_of('-'), key.size()));
  return key;
}

}  // namespace

const Strategy* find_strategy(std::string_view name) {
  const std::string key = spelling_key(name);
  for (const Strategy& s : strategies()) {
    if (spelling_key(s.name) == key) return &s;
    for (const std::string& alias : s.aliases) {
      if (spelling_key(alias) == key) return &s;
    }
  }
  return nullptr;
}

std::vector<SearchSpace> baseline_spaces(const TrainingConfig& t) {
  std::vector<SearchSpace> out;
  for (const Strategy& s : strategies()) {
    if (s.baseline) out.push_back(s.space(t));
  }
  return out;
}

std::string strategy_alias_note(const std::string& typed) {
  const Strategy* s = find_strategy(typed);
  if (s == nullptr || spelling_key(typed) == spelling_key(s->name)) return "";
  return "'" + typed + "' is shardscope's " + s->name + ": " + s->description;
}

std::string unknown_strategy_message(const std::string& name) {
  std::vector<std::string> spellings = strategy_names();
  for (const Strategy& s : strategies())
    spellings.insert(spellings.end(), s.aliases.begin(), s.aliases.end());
  const auto near = nearest_name(name, spellings);
  return "unknown strategy '" + name + "'" +
         (near ? "; did you mean '" + *near + "'?" : "; known: " + join(strategy_names()));
}

StrategyLookup strategy_lookup() {
  return StrategyLookup{[](const std::string& name) {
                          const Strategy* s = find_strategy(name);
                          return s == nullptr ? std::string() : s->name;
                        },
                        unknown_strategy_message};
}

SearchSpace space_by_name(const std::string& name, const TrainingConfig& t) {
  if (const Strategy* s = find_strategy(name)) return s->space(t);
  throw std::invalid_argument(unknown_strategy_message(name));
}

namespace {

// Calls emit(scopes, secondary, slices, k, checkpoint) for each distinct choice of one operator, in the order
// enumerate_choices lists them (k = 0 once per checkpoint value, as plain DP).
template <typename Emit>
void for_each_choice(const SearchSpace& space, const Operator& op, Emit&& emit) {
  const bool has_nnn = std::any_of(space.scopes.begin(), space.scopes.end(), [](const Scopes& s) {
    return s.parameters == N && s.gradients == N && s.optimizer == N;
  });
  const std::vector<bool> checkpoint =
      decides_per_operator(space.operator_policy)
          ? checkpoint_options(space.operator_policy, op, space.checkpoint_every)
          : space.checkpoint;
  for (bool ckpt : checkpoint) {
    if (has_nnn || space.partial) emit(Scopes{N, N, N}, false, 1, 0, ckpt);
    for (const Scopes& scopes : space.scopes) {
      if (scopes.parameters == N && scopes.gradients == N && scopes.optimizer == N) continue;
      for (int g : space.granularities) {
        if (g > 1 && !op.splittable) continue;
        const int k_first = space.partial ? 1 : g;
        for (int k = k_first; k <= g; ++k) emit(scopes, space.secondary_parameter_partition, g, k, ckpt);
      }
    }
  }
}

}  // namespace

std::vector<OperatorChoice> enumerate_choices(const SearchSpace& space, const Operator& op) {
  std::vector<OperatorChoice> out;
  for_each_choice(space, op, [&](const Scopes& scopes, bool secondary, int g, int k, bool ckpt) {
    out.push_back(OperatorChoice{op.name, scopes, secondary, g, k, ckpt});
    // An expert-parallel operator's plan names what it does (an I scope is N there): as many choices,
    // in the same order, so a uniform space's k-th choice stays the k-th everywhere.
    if (op.expert_parallel) out.back() = expert_parallel_choice(out.back());
  });
  return out;
}

std::int64_t count_choices(const SearchSpace& space, const Operator& op) {
  std::int64_t count = 0;
  for_each_choice(space, op, [&](const Scopes&, bool, int, int, bool) { ++count; });
  return count;
}

}  // namespace shardscope
