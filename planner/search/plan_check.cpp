// Plan-versus-scenario check: the fields a plan depends on must match; differing digests only warn.
#include "planner/search/plan_check.hpp"

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/search/planner.hpp"

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

}  // namespace

void record_plan_configuration(Plan& plan, const Scenario& scenario, const Calibration& calibration) {
  plan.group_size = scenario.training.group_size;
  plan.precision = scenario.training.precision;
  plan.sequence_length_tokens = scenario.model.sequence_length;
  plan.cost_model = scenario.planner.cost_model;
  plan.scenario_digest = scenario_digest(scenario);
  plan.calibration_digest = calibration_digest(calibration);
}

std::vector<std::string> check_plan_configuration(const Plan& plan, const Scenario& scenario,
                                                  const Calibration& calibration) {
  const PlanChecker check(plan);
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
