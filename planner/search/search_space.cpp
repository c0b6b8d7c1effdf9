// Search spaces of the planner and of every baseline strategy, and per-operator choice enumeration.
#include "planner/search/search_space.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

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

std::vector<SearchSpace> baseline_spaces(const TrainingConfig& t) {
  std::vector<SearchSpace> out = {
      whole_model("ddp", {N, N, N}, t),    whole_model("zero-1", {N, N, G}, t),
      whole_model("zero-2", {N, G, G}, t), whole_model("fsdp", {G, G, G}, t),
      whole_model("mics", {I, I, I}, t),   whole_model("zero++", {G, G, G}, t, true),
  };
  for (const Scopes& s : paro_scopes()) out.push_back(whole_model("paro-" + s.name(), s, t));
  out.push_back(osdp_space(t, false));
  out.push_back(osdp_space(t, true));
  return out;
}

SearchSpace space_by_name(const std::string& name, const TrainingConfig& t) {
  const std::string key = lower(name);
  if (key == "shardscope") return full_space(t);
  if (key == "zero-3") return whole_model("fsdp", {G, G, G}, t);
  for (const SearchSpace& s : baseline_spaces(t)) {
    if (lower(s.name) == key) return s;
  }
  std::string list = "shardscope, zero-3";
  for (const SearchSpace& s : baseline_spaces(t)) list += ", " + s.name;
  throw std::invalid_argument("unknown strategy '" + name + "'; known: " + list);
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
