// Picks the asked strategies' plans from one planner report; builds the split-operator plan from ZeRO-3's.
#include "validate/core/validation_plans.hpp"

#include <algorithm>
#include <stdexcept>

#include "planner/core/error.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"
#include "planner/search/split_plan.hpp"

namespace shardscope::validate {

namespace {

const StrategyResult* baseline(const PlanReport& report, const std::string& name) {
  const Strategy* strategy = find_strategy(name);
  if (!strategy) return nullptr;
  for (const StrategyResult& result : report.baselines) {
    if (result.strategy == strategy->name) return &result;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> default_validation_strategies() {
  return {"shardscope", "ddp", "zero-2", "zero-3", "split"};
}

std::vector<ValidationPlan> validation_plans(const Scenario& scenario, const Calibration& calibration,
                                             const std::vector<std::string>& strategies,
                                             std::vector<std::string>* unfit) {
  const PlanReport report =
      plan_scenario(ValidScenario(scenario), calibration,
                    PlanRequest{.with_baselines = true, .search = {.observer = nullptr, .threads = 1}});
  std::vector<ValidationPlan> out;
  for (const std::string& name : strategies) {
    const StrategyResult* result = nullptr;
    if (name == "shardscope") {
      result = &report.best;
    } else {
      result = baseline(report, name == "split" ? "zero-3" : name);
      if (!result) {
        throw std::invalid_argument("strategy '" + name +
                                    "': not a strategy the planner has a plan for (known: " +
                                    "shardscope, split, " + join(strategy_names()) + ")");
      }
    }
    if (!result->fits && unfit != nullptr) {
      unfit->push_back(name);
      continue;
    }
    if (!result->fits) {
      throw std::invalid_argument("strategy '" + name +
                                  "': its plan does not fit the scenario's memory limit");
    }
    Plan plan = name == "split" ? split_plan(scenario, result->plan) : result->plan;
    try {
      plan.predicted = evaluate_plan(ValidScenario(scenario), calibration, plan);
    } catch (const PlanDoesNotFit&) {  // the split plan can outgrow the limit its ZeRO-3 plan kept
      if (unfit == nullptr) throw;
      unfit->push_back(name);
      continue;
    }
    out.push_back({name, plan});
  }
  return out;
}

}  // namespace shardscope::validate
