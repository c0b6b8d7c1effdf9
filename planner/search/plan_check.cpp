// Plan-versus-scenario check: the fields a plan depends on must match, its choices must be in the scenario's
// space; differing scenario or calibration digests only warn.
#include "planner/search/plan_check.hpp"

#include <algorithm>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

class PlanChecker {
 public:
  explicit PlanChecker(const Plan& plan)
      : plan_(plan), file_(plan.source.file.empty() ? "<plan>" : plan.source.file) {}

  template <typename T>
  void same(const std::string& key, const std::string& what, const T& planned, const T& scenario) const {
    if (planned == scenario) return;
    throw InputError(file_, plan_.source.line(key), "plan." + key,
                     "the plan was made for " + what + " " + text(planned) + ", the scenario has " +
                         text(scenario) + "; re-plan with `shardscope plan --out` for this scenario");
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(file_, plan_.source.line(key), "plan." + key, message);
  }
  std::string warning(const std::string& key, const std::string& what) const {
    const int line = plan_.source.line(key);
    return "warning: " + file_ + (line > 0 ? ":" + std::to_string(line) : "") + ": plan." + key +
           ": the plan was made for a different " + what +
           " (every checked field matches; its predictions may be stale)";
  }

 private:
  static std::string text(const std::string& s) { return s; }
  static std::string text(const char* s) { return s; }
  template <typename T>
  static std::string text(T v) {
    return std::to_string(v);
  }

  const Plan& plan_;
  std::string file_;
};

// The choices the scenario's search space allows an operator, checked one by one: scopes by PaRO's rule
// (the optimizer state at least as finely sharded as the parameters and gradients), a slice count of 1 or
// one of the scenario's granularities (and 1 for an operator that cannot be split), checkpointing as the
// scenario's policy allows.
void check_operator(const PlanChecker& check, const Scenario& scenario, std::size_t index,
                    const OperatorChoice& c) {
  const std::string at = "operators[" + std::to_string(index) + "].";
  const std::vector<Scopes> allowed = paro_scopes();
  const bool paro = std::any_of(allowed.begin(), allowed.end(), [&](const Scopes& s) {
    return s.parameters == c.scopes.parameters && s.gradients == c.scopes.gradients &&
           s.optimizer == c.scopes.optimizer;
  });
  if (!paro) {
    check.fail(at + "os_scope", "operator '" + c.name + "' has scopes " + c.scopes.name() +
                                    " (parameters, gradients, optimizer); PaRO's rule needs the optimizer "
                                    "scope at least as fine as the other two (N, then I, then G, finest)");
  }
  if (stage_shards_optimizer_only(scenario) &&
      (c.scopes.parameters != ShardScope::N || c.scopes.gradients != ShardScope::N)) {
    check.fail(at + (c.scopes.parameters != ShardScope::N ? "p_scope" : "g_scope"),
               "operator '" + c.name + "' has scopes " + c.scopes.name() + "; under the " +
                   std::string(to_string(scenario.execution.runtime.name)) +
                   " runtime a pipeline stage keeps parameters and gradients whole through the step "
                   "(only the optimizer states shard: p_scope and g_scope N)");
  }
  const std::vector<int>& granularities = scenario.training.slice_granularities;
  if (c.slices != 1 &&
      std::find(granularities.begin(), granularities.end(), c.slices) == granularities.end()) {
    std::string list;
    for (const int g : granularities) list += (list.empty() ? "" : ", ") + std::to_string(g);
    check.fail(at + "slices", "operator '" + c.name + "' is cut into " + std::to_string(c.slices) +
                                  " slices; the scenario's slice_granularities are " + list);
  }
  const Operator& op = scenario.model.operators[index];
  if (c.slices > 1 && !op.splittable) {
    check.fail(at + "slices", "operator '" + c.name + "' cannot be split, but the plan cuts it into " +
                                  std::to_string(c.slices) + " slices");
  }
  const std::vector<bool> checkpoint =
      checkpoint_options(scenario.training.checkpointing, op, scenario.training.checkpoint_every);
  if (std::find(checkpoint.begin(), checkpoint.end(), c.checkpoint) == checkpoint.end()) {
    check.fail(at + "checkpoint", std::string("operator '") + c.name + "' is " +
                                      (c.checkpoint ? "" : "not ") + "checkpointed; the scenario's " +
                                      "checkpointing is '" + to_string(scenario.training.checkpointing) +
                                      "'");
  }
}

}  // namespace

void record_plan_configuration(Plan& plan, const Scenario& scenario, const Calibration& calibration) {
  plan.model_digest = model_digest(scenario.model);
  plan.group_size = scenario.training.group_size;
  plan.precision = scenario.training.precision;
  plan.sequence_length_tokens = scenario.model.sequence_length;
  plan.cost_model = scenario.planner.cost_model;
  plan.tensor = scenario.mesh.tensor;
  plan.scenario_digest = scenario_digest(scenario);
  plan.calibration_digest = calibration_digest(calibration);
}

std::vector<std::string> check_plan_configuration(const Plan& plan, const Scenario& scenario,
                                                  const Calibration& calibration) {
  const PlanChecker check(plan);
  if (plan.operators.size() != scenario.model.operators.size()) {
    check.fail("operators", "the plan has " + std::to_string(plan.operators.size()) +
                                " operators, the model " + std::to_string(scenario.model.operators.size()));
  }
  const auto on_off = [](bool on) { return std::string(on ? "on" : "off"); };
  check.same("mesh", "tensor-parallel degree", plan.tensor.degree, scenario.mesh.tensor.degree);
  check.same("mesh", "sequence parallelism", on_off(plan.tensor.sequence_parallel),
             on_off(scenario.mesh.tensor.sequence_parallel));
  check.same("mesh", "context-parallel degree", plan.tensor.context, scenario.mesh.tensor.context);
  check.same("mesh", "expert-parallel degree", plan.tensor.expert, scenario.mesh.tensor.expert);
  check.same("mesh", "expert load imbalance", plan.tensor.expert_imbalance,
             scenario.mesh.tensor.expert_imbalance);
  const std::uint64_t model = model_digest(scenario.model);
  if (plan.model_digest != model) {
    check.fail("model_digest",
               "the plan was made for another model (digest " + format_digest(plan.model_digest) +
                   "; this scenario's model has " + format_digest(model) +
                   ": the same operator names with other sizes); re-plan with `shardscope plan --out` for "
                   "this scenario");
  }
  check.same("group_size", "group size", plan.group_size, scenario.training.group_size);
  check.same<std::string>("precision", "precision", to_string(plan.precision),
                          to_string(scenario.training.precision));
  check.same("sequence_length_tokens", "sequence length", plan.sequence_length_tokens,
             scenario.model.sequence_length);
  check.same<std::string>("cost_model", "cost model", to_string(plan.cost_model),
                          to_string(scenario.planner.cost_model));
  if (scenario.training.micro_batch > 0) {
    check.same("batch_size", "micro-batch", plan.micro_batch, scenario.training.micro_batch);
  }
  const int steps = accumulation_steps_for(scenario, plan.micro_batch);
  if (steps == 0) {
    const std::int64_t per_step = plan.micro_batch * scenario.cluster.gpus();
    const std::string plan_step = "the plan's micro-batch " + std::to_string(plan.micro_batch) + " x " +
                                  std::to_string(scenario.cluster.gpus()) + " GPUs";
    check.fail("batch_size",
               scenario.training.global_batch % per_step != 0
                   ? plan_step + " does not divide the scenario's global batch " +
                         std::to_string(scenario.training.global_batch)
                   : plan_step + " needs " + std::to_string(scenario.training.global_batch / per_step) +
                         " accumulation steps to reach the scenario's global batch, more than the " +
                         std::to_string(kMaxAccumulationSteps) + " supported");
  }
  check.same("gradient_accumulation_steps", "gradient accumulation steps", plan.gradient_accumulation_steps,
             steps);
  for (std::size_t i = 0; i < plan.operators.size(); ++i)
    check_operator(check, scenario, i, plan.operators[i]);
  std::vector<std::string> warnings;
  if (plan.scenario_digest != scenario_digest(scenario)) {
    warnings.push_back(check.warning("scenario_digest", "scenario (model, cluster or training config)"));
  }
  if (plan.calibration_digest != calibration_digest(calibration)) {
    warnings.push_back(check.warning("calibration_digest", "calibration"));
  }
  return warnings;
}

}  // namespace shardscope
