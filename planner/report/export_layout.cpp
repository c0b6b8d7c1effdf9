// Each operator's modules and FSDP2 placement, the placement most parameters share, and the header every
// export opens with.
#include "planner/report/internal/export_layout.hpp"

#include <cstdio>
#include <map>
#include <tuple>

#include "planner/core/mesh.hpp"
#include "planner/core/units.hpp"

namespace shardscope::exporting {
namespace {

// Operators that share one reason FSDP2 cannot express them, for a single line of the header.
class Reasons {
 public:
  void add(const std::string& reason, const std::string& example) {
    auto& [count, first] = by_reason_[reason];
    if (count++ == 0) first = example;
  }
  void append_to(std::vector<std::string>& out) const {
    for (const auto& [reason, entry] : by_reason_)
      out.push_back(reason + ": " + std::to_string(entry.first) + " operator" +
                    (entry.first == 1 ? "" : "s") + ", e.g. " + entry.second);
  }

 private:
  std::map<std::string, std::pair<int, std::string>> by_reason_;
};

// The module paths of a generated transformer's operator (its kind and layer, as planner/core/transformer.cpp
// makes them); false for an operator of no generated transformer.
bool transformer_modules(const Operator& op, bool tied_head, Placement& p) {
  const bool block =
      op.kind == OperatorKind::attention || op.kind == OperatorKind::mlp || op.kind == OperatorKind::moe;
  const std::string n = std::to_string(op.layer);
  if (op.kind == OperatorKind::embedding && op.name == "embedding") {
    p.hf_modules = {"model.embed_tokens"};
    p.titan_modules = {"tok_embeddings"};
  } else if (op.kind == OperatorKind::head && op.name == "head") {
    p.hf_modules = {"model.norm"};
    p.titan_modules = {"norm"};
    if (!tied_head) {
      p.hf_modules.push_back("lm_head");
      p.titan_modules.push_back("output");
    }
  } else if (block && op.layer >= 0 && op.name.rfind("layer" + n + ".", 0) == 0) {
    const bool attention = op.kind == OperatorKind::attention;
    p.hf_modules = {"model.layers." + n + (attention ? ".self_attn" : ".mlp")};
    p.titan_modules = {"layers." + n + (attention ? ".attention" : ".feed_forward")};
  } else {
    return false;
  }
  return true;
}

// The head's projection shares the embedding's weight when the head holds little more than its norm.
bool tied_head(const Model& model) {
  std::int64_t embedding = 0, head = 0;
  for (const Operator& op : model.operators) {
    if (op.name == "embedding") embedding = op.parameters;
    if (op.name == "head") head = op.parameters;
  }
  return embedding > 0 && head * 100 < embedding;
}

const char* mesh_of(ShardScope scope) {
  return scope == ShardScope::G ? "global" : scope == ShardScope::I ? "hsdp" : "replicate";
}

// reshard_after_forward for parameters scoped `p` whose states live at `stored`.
std::string reshard_of(const OperatorChoice& c, Reasons& reasons) {
  const ShardScope p = c.scopes.parameters, stored = c.scopes.optimizer;
  if (stored == ShardScope::N || p == ShardScope::N) return "False";
  if (p == ShardScope::I && stored == ShardScope::G) return "GROUP_SIZE";
  if (p == ShardScope::G && c.secondary_parameter_partition) return "GROUP_SIZE";  // hpZ's copy in a group
  if (p != stored)
    reasons.add("parameters scoped wider than their states", c.name + " (" + c.scopes.name() + ")");
  return "True";
}

}  // namespace

std::vector<Placement> placements(const Scenario& scenario, const Plan& plan,
                                  std::vector<std::string>& unexpressed) {
  const bool tied = tied_head(scenario.model);
  Reasons reasons;
  std::vector<Placement> out;
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    const OperatorChoice& c = plan.operators[i];
    Placement p;
    p.op = c.name;
    p.parameters = scenario.model.operators[i].parameters;
    p.scopes = c.scopes.name();
    p.checkpoint = c.checkpoint;
    if (!transformer_modules(scenario.model.operators[i], tied, p)) {
      p.hf_modules = p.titan_modules = {c.name};
      reasons.add("names taken as module paths as they are (no generated transformer's)", c.name);
    }
    if (c.name == "head" && tied)
      reasons.add("a tied head: its projection is the embedding's weight, wrapped with the embedding",
                  c.name);
    p.mesh = mesh_of(c.scopes.optimizer);
    p.reshard = reshard_of(c, reasons);
    if (c.scopes.gradients != c.scopes.optimizer)
      reasons.add("gradients scoped unlike the optimizer state (stored alike here: as the state)",
                  c.name + " (" + p.scopes + ")");
    if (c.slices > 1)
      reasons.add("operator splitting (each wrapped whole, with its sharded slices' scopes)",
                  c.name + " (" + std::to_string(c.slices) + " slices, " + std::to_string(c.sharded_slices) +
                      " sharded)");
    out.push_back(std::move(p));
  }
  reasons.append_to(unexpressed);
  return out;
}

Dominant dominant_placement(const std::vector<Placement>& placements) {
  using Key = std::tuple<std::string, std::string, bool>;
  std::map<Key, std::int64_t> weight;
  for (const Placement& p : placements) weight[{p.mesh, p.reshard, p.checkpoint}] += p.parameters;
  Key best{};
  std::int64_t most = -1;
  for (const auto& [key, w] : weight)
    if (w > most) std::tie(best, most) = std::tie(key, w);
  Dominant d;
  for (const Placement& p : placements) {
    if (Key{p.mesh, p.reshard, p.checkpoint} == best) {
      if (d.placement.op.empty()) d.placement = p;
      continue;
    }
    d.differing.push_back(p.op + " (" + p.scopes + (p.checkpoint ? ", checkpointed" : "") + ")");
  }
  return d;
}

std::vector<std::string> header_lines(const Scenario& scenario, const Plan& plan, ExportFormat format,
                                      const std::vector<std::string>& unexpressed) {
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f", plan.predicted.tokens_per_second);
  std::vector<std::string> out = {
      "Generated by `shardscope plan --export " + std::string(to_string(format)) + "` from scenario '" +
          scenario.name + "' (" + scenario.model.name + " on " +
          (scenario.mesh.sliced() ? mesh_text(scenario) + ", PaRO's groups " +
                                        std::to_string(plan.group_size) + " data-parallel ranks)."
                                  : std::to_string(scenario.cluster.gpus()) + " GPUs, groups of " +
                                        std::to_string(plan.group_size) + ")."),
      "Plan '" + plan.strategy + "': micro-batch " + std::to_string(plan.micro_batch) + " x " +
          std::to_string(plan.gradient_accumulation_steps) + " accumulation steps; predicted " + rate +
          " tokens/s, peak " + units::format_bytes(plan.predicted.peak_memory_bytes) + " per GPU (reserved).",
  };
  if (unexpressed.empty()) {
    out.push_back("Everything the plan chose is expressed here.");
    return out;
  }
  out.push_back("Not expressible in " + std::string(to_string(format)) + " (applied as said):");
  for (const std::string& line : unexpressed) out.push_back("  - " + line);
  return out;
}

std::string param_dtype(const Scenario& scenario) {
  switch (scenario.training.precision) {
    case Precision::fp32:
      return "float32";
    case Precision::mixed_fp16:
      return "float16";
    case Precision::mixed_bf16:
      break;
  }
  return "bfloat16";
}

std::string reduce_dtype(const Scenario& scenario) {
  return scenario.execution.reduce_dtype == ReduceDtype::fp32 ? "float32" : param_dtype(scenario);
}

}  // namespace shardscope::exporting
