// Candidate plans: distinct, fastest first, from the plan, per-batch picks, baselines and alternatives.
#include "planner/search/candidates.hpp"

#include <algorithm>

#include "planner/core/error.hpp"
#include "planner/search/batch_solve.hpp"
#include "planner/search/plan_evaluation.hpp"

namespace shardscope {
namespace {

// The fractions of the memory between the least any plan needs and the search's capacity that the
// alternatives may spend.
constexpr double kAlternativeBudgets[] = {0.9, 0.75, 0.5, 0.25};

}  // namespace

bool same_plan_choices(const Plan& a, const Plan& b) {
  if (a.micro_batch != b.micro_batch || a.gradient_accumulation_steps != b.gradient_accumulation_steps ||
      a.operators.size() != b.operators.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.operators.size(); ++i) {
    const OperatorChoice& x = a.operators[i];
    const OperatorChoice& y = b.operators[i];
    if (x.scopes.name() != y.scopes.name() ||
        x.secondary_parameter_partition != y.secondary_parameter_partition || x.slices != y.slices ||
        x.sharded_slices != y.sharded_slices || x.checkpoint != y.checkpoint) {
      return false;
    }
  }
  return true;
}

std::vector<Plan> candidate_plans(const PlanReport& report, std::vector<Plan> per_batch,
                                  std::vector<Plan> alternatives, std::size_t limit, const Plan& configured) {
  std::vector<Plan> pool;
  if (report.best.fits) {
    pool.push_back(report.best.plan);
    if (!report.best.adopted_from.empty())
      pool.back().strategy = report.best.adopted_from;  // whose plan it is
  }
  for (Plan& p : per_batch) {
    copy_plan_configuration(p, configured);
    pool.push_back(std::move(p));
  }
  for (const StrategyResult& b : report.baselines) {
    if (b.fits) pool.push_back(b.plan);
  }
  // An alternative with the choices of a plan already there (a baseline's, priced with other collectives)
  // would only rename that plan.
  const std::size_t named = pool.size();
  for (Plan& a : alternatives) {
    const auto same = [&](const Plan& q) { return same_plan_choices(a, q); };
    if (std::none_of(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(named), same))
      pool.push_back(std::move(a));
  }
  std::stable_sort(pool.begin(), pool.end(), [](const Plan& a, const Plan& b) {
    return a.predicted.samples_per_second > b.predicted.samples_per_second;
  });
  std::vector<Plan> out;
  for (Plan& p : pool) {
    if (out.size() == limit) break;
    const auto seen = [&](const Plan& q) { return same_plan_choices(p, q); };
    if (std::none_of(out.begin(), out.end(), seen)) out.push_back(std::move(p));
  }
  return out;
}

std::vector<Plan> alternative_plans(const ValidScenario& scenario, const Calibration& calibration,
                                    const SearchSpace& space, const Plan& best, const Plan& configured) {
  std::vector<Plan> out;
  if (space.uniform || !space.pins.empty()) return out;
  PlanInstance inst = build_instance(scenario, calibration, space,
                                     TrainingStep{best.micro_batch, best.gradient_accumulation_steps});
  const double capacity = inst.problem.capacity_bytes;
  const double least = minimum_peak(inst.problem);
  for (double budget : kAlternativeBudgets) {
    inst.problem.capacity_bytes = least + budget * (capacity - least);
    const BatchOutcome solved = solve_per_operator(inst, 0);
    if (solved.status != BatchStatus::solved) continue;
    Plan plan = best;
    plan.strategy = space.name;  // the best may be an adopted baseline's; these are the search's own
    plan.collectives = scenario_collectives(scenario);
    plan.operators = picked_choices(inst, solved.picks);
    copy_plan_configuration(plan, configured);
    try {
      plan.predicted = evaluate_plan(scenario, calibration, plan);
    } catch (const PlanDoesNotFit&) {
      continue;  // its whole plan holds more than the search counted
    }
    // The whole plan's peak (its schedule) can exceed what the search counted; such a plan is no candidate.
    if (plan.predicted.peak_memory_bytes > static_cast<double>(scenario.training.memory_limit_bytes))
      continue;
    out.push_back(std::move(plan));
  }
  return out;
}

}  // namespace shardscope
