// Search spaces of the planner and of every baseline strategy, and per-operator choice enumeration.
#include "planner/search/search_space.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "planner/core/names.hpp"

namespace shardscope {
namespace {

constexpr ShardScope N = ShardScope::N, I = ShardScope::I, G = ShardScope::G;

int fineness(ShardScope s) { return s == N ? 0 : s == I ? 1 : 2; }

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

SearchSpace whole_model(const std::string& name, Scopes scopes, const TrainingConfig& t, bool hpz = false) {
  SearchSpace s;
  s.name = name;
  s.scopes = {scopes};
  s.secondary_parameter_partition = hpz;
  s.granularities = {1};
  s.partial = false;
  s.checkpoint = checkpoint_options(t.checkpointing);
  s.uniform = true;
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
  }
  return {false};
}

SearchSpace full_space(const TrainingConfig& t) {
  SearchSpace s;
  s.name = "shardscope";
  s.scopes = paro_scopes();
  s.granularities = t.slice_granularities;
  s.checkpoint = checkpoint_options(t.checkpointing);
  return s;
}

SearchSpace osdp_space(const TrainingConfig& t, bool splitting) {
  SearchSpace s;
  s.name = splitting ? "osdp" : "osdp-no-split";
  s.scopes = {{N, N, N}, {G, G, G}};
  s.granularities = splitting ? t.slice_granularities : std::vector<int>{1};
  s.checkpoint = checkpoint_options(t.checkpointing);
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

const std::vector<Strategy>& strategies() {
  static const std::vector<Strategy> registry = [] {
    using Shape = Strategy::Shape;
    std::vector<Strategy> out = {
        {"shardscope",
         "per operator any PaRO scope, slice count and checkpointing (the planner's own space)",
         {},
         Shape::full,
         {},
         false,
         false,
         false,
         CollectiveModel::ring},
        {"ddp", "DDP: every state replicated (NNN)", {}, Shape::whole_model, {N, N, N}, false, true, true},
        {"zero-1",
         "ZeRO-1: optimizer state sharded over all GPUs (NNG)",
         {},
         Shape::whole_model,
         {N, N, G},
         false,
         true,
         true},
        {"zero-2",
         "ZeRO-2: gradients and optimizer state sharded over all GPUs (NGG)",
         {},
         Shape::whole_model,
         {N, G, G},
         false,
         true,
         true},
        {"fsdp",
         "FSDP = ZeRO-3: every state sharded over all GPUs (GGG)",
         {"zero-3"},
         Shape::whole_model,
         {G, G, G},
         false,
         true,
         true},
        {"mics",
         "MiCS (FSDP hybrid shard): every state sharded inside a group (III)",
         {},
         Shape::whole_model,
         {I, I, I},
         false,
         true,
         false},
        {"zero++",
         "ZeRO++: GGG with a secondary parameter copy sharded inside each group (hpZ)",
         {},
         Shape::whole_model,
         {G, G, G},
         true,
         true,
         false},
    };
    for (const Scopes& s : paro_scopes()) {
      out.push_back({"paro-" + s.name(),
                     "PaRO-" + s.name() + ": parameter, gradient and optimizer scopes " + s.name() +
                         " (N replicated, I in a group, G over all GPUs)",
                     {},
                     Shape::whole_model,
                     s,
                     false,
                     true,
                     false,
                     CollectiveModel::ring});
    }
    out.push_back({"osdp-no-split",
                   "OSDP without operator splitting: per operator DP (NNN) or ZDP (GGG)",
                   {},
                   Shape::osdp_no_split,
                   {},
                   false,
                   true,
                   false});
    out.push_back({"osdp",
                   "OSDP: per operator DP or ZDP, with operator splitting",
                   {},
                   Shape::osdp,
                   {},
                   false,
                   true,
                   false});
    return out;
  }();
  return registry;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const Strategy& s : strategies()) out.push_back(s.name);
  return out;
}

const Strategy* find_strategy(std::string_view name) {
  const std::string key = lower(std::string(name));
  for (const Strategy& s : strategies()) {
    if (lower(s.name) == key) return &s;
    for (const std::string& alias : s.aliases) {
      if (lower(alias) == key) return &s;
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

CollectiveModel collective_model_for(const ExecutionOptions& execution, std::string_view strategy) {
  // What a plan of this strategy runs: it records the strategy's own collectives (rings for a name no
  // strategy has), and plan_collectives applies the scenario's explicit choice over them.
  const Strategy* s = find_strategy(strategy);
  Plan plan;
  plan.collectives = s == nullptr ? CollectiveModel::ring : s->collectives;
  return plan_collectives(execution, plan);
}

SearchSpace space_by_name(const std::string& name, const TrainingConfig& t) {
  if (const Strategy* s = find_strategy(name)) return s->space(t);
  throw std::invalid_argument(unknown_strategy_message(name));
}

std::vector<OperatorChoice> enumerate_choices(const SearchSpace& space, const Operator& op) {
  std::vector<OperatorChoice> out;
  const bool has_nnn = std::any_of(space.scopes.begin(), space.scopes.end(), [](const Scopes& s) {
    return s.parameters == N && s.gradients == N && s.optimizer == N;
  });
  for (bool ckpt : space.checkpoint) {
    if (has_nnn || space.partial) {
      // Plain DP: nothing sharded (k = 0), whatever the scopes say.
      out.push_back(OperatorChoice{op.name, Scopes{N, N, N}, false, 1, 0, ckpt});
    }
    for (const Scopes& scopes : space.scopes) {
      if (scopes.parameters == N && scopes.gradients == N && scopes.optimizer == N) continue;
      for (int g : space.granularities) {
        if (g > 1 && !op.splittable) continue;
        const int k_first = space.partial ? 1 : g;
        for (int k = k_first; k <= g; ++k) {
          out.push_back(OperatorChoice{op.name, scopes, space.secondary_parameter_partition, g, k, ckpt});
        }
      }
    }
  }
  return out;
}

}  // namespace shardscope
