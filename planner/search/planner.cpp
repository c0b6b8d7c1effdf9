// Planner: batch-size scheduler over exact per-batch solves, whole-model baselines and the Pareto front.
#include "planner/search/planner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "planner/core/scenario_check.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/search/plan_check.hpp"

namespace shardscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::int64_t> batch_candidates(const Scenario& s) {
  std::vector<std::int64_t> out;
  if (s.training.micro_batch > 0) return {s.training.micro_batch};
  for (std::int64_t b = 1; b <= s.training.max_micro_batch; ++b) {
    if (accumulation_steps_for(s, b) > 0) out.push_back(b);
  }
  return out;
}

double minimum_peak(const McProblem& p) {
  double best = kInf;
  for (double t : transient_thresholds(p)) {
    double resident = 0;
    for (const auto& items : p.classes) {
      double lightest = kInf;
      for (const McItem& it : items) {
        if (it.transient_bytes <= t) lightest = std::min(lightest, it.resident_bytes);
      }
      resident += lightest;
    }
    best = std::min(best, resident + t);
  }
  return best;
}

double lp_time_bound(const McProblem& p) {
  double best = kInf;
  for (double t : transient_thresholds(p)) best = std::min(best, lp_lower_bound(p, t, p.capacity_bytes - t));
  return best;
}

Plan make_plan(const SearchSpace& space, const PlanInstance& inst, const std::vector<int>& picks,
               std::int64_t b, int accumulation) {
  Plan plan;
  plan.strategy = space.name;
  plan.micro_batch = b;
  plan.gradient_accumulation_steps = accumulation;
  for (std::size_t c = 0; c < picks.size(); ++c)
    plan.operators.push_back(inst.choices[c][static_cast<std::size_t>(picks[c])]);
  return plan;
}

}  // namespace

int accumulation_steps_for(const Scenario& s, std::int64_t micro_batch) {
  if (s.training.global_batch <= 0) return s.training.gradient_accumulation_steps;
  const std::int64_t per_step = micro_batch * s.cluster.gpus();
  if (s.training.global_batch % per_step != 0) return 0;  // this micro-batch cannot reach the global batch
  return static_cast<int>(s.training.global_batch / per_step);
}

PlanInstance build_instance(const Scenario& scenario, const Calibration& calibration,
                            const SearchSpace& space, std::int64_t micro_batch) {
  const std::unique_ptr<CostModel> model = make_cost_model(scenario, calibration);
  PlanInstance inst;
  inst.fixed_bytes = model->fixed_bytes();
  inst.samples_per_iteration = model->samples_per_iteration(micro_batch);
  inst.problem.capacity_bytes = static_cast<double>(scenario.training.memory_limit_bytes) - inst.fixed_bytes;
  // Operators of one cost class (the model's key) that enumerate the same choices share their item lists.
  const std::vector<std::size_t> cost_class = model->cost_classes();
  std::map<std::pair<std::size_t, bool>, std::size_t> first_of_shape;
  for (std::size_t i = 0; i < scenario.model.operators.size(); ++i) {
    const Operator& op = scenario.model.operators[i];
    const std::pair<std::size_t, bool> shape{cost_class[i], op.splittable};
    if (auto it = first_of_shape.find(shape); it != first_of_shape.end()) {
      inst.problem.classes.push_back(inst.problem.classes[it->second]);
      std::vector<OperatorChoice> choices = inst.choices[it->second];
      for (OperatorChoice& c : choices) c.name = op.name;
      inst.choices.push_back(std::move(choices));
      continue;
    }
    std::vector<OperatorChoice> choices = enumerate_choices(space, op);
    std::vector<McItem> items;
    for (const OperatorChoice& c : choices) {
      const ItemCost cost = model->cost(i, c, micro_batch);
      items.push_back({cost.seconds, cost.resident_bytes, cost.transient_bytes});
    }
    McProblem single;
    single.classes.push_back(std::move(items));
    if (!space.uniform) {
      const auto kept = remove_dominated(single);
      std::vector<OperatorChoice> filtered;
      for (int k : kept[0]) filtered.push_back(choices[static_cast<std::size_t>(k)]);
      choices = std::move(filtered);
    }
    first_of_shape.emplace(shape, inst.problem.classes.size());
    inst.problem.classes.push_back(std::move(single.classes[0]));
    inst.choices.push_back(std::move(choices));
  }
  return inst;
}

StrategyResult plan_strategy(const Scenario& base, const Calibration& calibration, const SearchSpace& space) {
  validate_scenario(base);
  StrategyResult result;
  result.strategy = space.name;
  double best_throughput = 0;
  double best_lower = 0;
  bool first = true;
  for (std::int64_t b : batch_candidates(base)) {
    Scenario scenario = base;
    scenario.training.gradient_accumulation_steps = accumulation_steps_for(base, b);
    const PlanInstance inst = build_instance(scenario, calibration, space, b);
    BatchRow row;
    row.micro_batch = b;
    row.gradient_accumulation_steps = scenario.training.gradient_accumulation_steps;

    std::vector<int> picks;
    double seconds = kInf, lower = 0;
    if (space.uniform) {
      // Whole-model strategy: every operator takes the same option (all classes list them alike).
      double min_peak = kInf;
      for (std::size_t j = 0; j < inst.problem.classes[0].size(); ++j) {
        std::vector<int> candidate(inst.problem.classes.size(), static_cast<int>(j));
        const double peak = selection_peak_bytes(inst.problem, candidate);
        min_peak = std::min(min_peak, peak);
        if (peak > inst.problem.capacity_bytes) continue;
        const double s = selection_seconds(inst.problem, candidate);
        if (s < seconds) {
          seconds = s;
          picks = candidate;
        }
      }
      lower = seconds;
      if (first) result.minimum_memory_bytes = min_peak + inst.fixed_bytes;
    } else {
      const double min_peak = minimum_peak(inst.problem);
      if (first) result.minimum_memory_bytes = min_peak + inst.fixed_bytes;
      if (min_peak <= inst.problem.capacity_bytes) {
        const double lp = lp_time_bound(inst.problem);
        if (best_throughput > 0 && inst.samples_per_iteration / lp <= best_throughput) {
          row.status = "pruned";
          row.lower_bound_seconds = lp;
          result.batches.push_back(row);
          first = false;
          continue;
        }
        const McSolution sol = solve_dp(inst.problem);
        result.solver_cells += sol.explored;
        if (sol.feasible) {
          seconds = sol.seconds;
          lower = sol.lower_bound_seconds;
          picks = sol.picks;
        }
      }
    }
    first = false;
    if (picks.empty()) {
      row.status = "does-not-fit";
      result.batches.push_back(row);
      break;  // memory only grows with the batch
    }
    row.status = "solved";
    row.iteration_seconds = seconds;
    row.samples_per_second = inst.samples_per_iteration / seconds;
    row.peak_memory_bytes = selection_peak_bytes(inst.problem, picks) + inst.fixed_bytes;
    row.lower_bound_seconds = lower;
    result.batches.push_back(row);
    if (row.samples_per_second > best_throughput) {
      best_throughput = row.samples_per_second;
      best_lower = lower;
      result.fits = true;
      result.plan = make_plan(space, inst, picks, b, scenario.training.gradient_accumulation_steps);
      result.plan.predicted.iteration_seconds = seconds;
      result.plan.predicted.samples_per_second = row.samples_per_second;
      result.plan.predicted.tokens_per_second =
          row.samples_per_second * static_cast<double>(scenario.model.sequence_length);
      result.plan.predicted.peak_memory_bytes = row.peak_memory_bytes;
    }
  }
  result.lower_bound_seconds = best_lower;
  if (result.fits) {
    record_plan_configuration(result.plan, base, calibration);
    Scenario at = base;
    at.training.gradient_accumulation_steps = result.plan.gradient_accumulation_steps;
    const std::unique_ptr<CostModel> model = make_cost_model(at, calibration);
    for (std::size_t i = 0; i < result.plan.operators.size(); ++i) {
      const OperatorChoice& c = result.plan.operators[i];
      result.operator_costs.push_back(
          {model->cost(i, c, result.plan.micro_batch), model->memory(i, c, result.plan.micro_batch)});
    }
  }
  if (!result.fits) {
    result.shortfall_bytes =
        result.minimum_memory_bytes - static_cast<double>(base.training.memory_limit_bytes);
  }
  return result;
}

PlanPrediction evaluate_plan(const Scenario& scenario, const Calibration& calibration, const Plan& plan) {
  validate_scenario(scenario);
  (void)check_plan_configuration(plan, scenario, calibration);  // callers that show warnings check first
  Scenario at = scenario;
  at.training.gradient_accumulation_steps = plan.gradient_accumulation_steps;
  const std::unique_ptr<CostModel> model = make_cost_model(at, calibration);
  McProblem problem;
  std::vector<int> picks;
  PlanPrediction out;
  for (std::size_t i = 0; i < plan.operators.size() && i < scenario.model.operators.size(); ++i) {
    const ItemCost c = model->cost(i, plan.operators[i], plan.micro_batch);
    problem.classes.push_back({{c.seconds, c.resident_bytes, c.transient_bytes}});
    picks.push_back(0);
    out.iteration_seconds += c.seconds;
  }
  out.peak_memory_bytes = selection_peak_bytes(problem, picks) + model->fixed_bytes();
  out.samples_per_second = model->samples_per_iteration(plan.micro_batch) / out.iteration_seconds;
  out.tokens_per_second = out.samples_per_second * static_cast<double>(scenario.model.sequence_length);
  return out;
}

PlanReport plan_scenario(const Scenario& scenario, const Calibration& calibration, bool with_baselines) {
  PlanReport report;
  const bool paper = scenario.planner.cost_model == CostModelKind::paper;
  const SearchSpace main_space = paper ? osdp_space(scenario.training, true) : full_space(scenario.training);
  report.best = plan_strategy(scenario, calibration, main_space);
  if (with_baselines) {
    for (const SearchSpace& space : baseline_spaces(scenario.training)) {
      const bool paper_only_scopes =
          space.scopes.size() <= 2 &&
          std::all_of(space.scopes.begin(), space.scopes.end(),
                      [](const Scopes& s) { return s.name() == "NNN" || s.name() == "GGG"; }) &&
          !space.secondary_parameter_partition;
      if (paper && !paper_only_scopes) continue;  // the paper model knows only DP and ZDP
      report.baselines.push_back(plan_strategy(scenario, calibration, space));
    }
  }
  if (report.best.fits) {
    Scenario at_best = scenario;
    at_best.training.gradient_accumulation_steps = report.best.plan.gradient_accumulation_steps;
    at_best.training.memory_limit_bytes =
        scenario.cluster.gpu.memory_bytes;  // show the curve up to the device
    PlanInstance inst = build_instance(at_best, calibration, main_space, report.best.plan.micro_batch);
    for (ParetoPoint p : pareto_front(inst.problem)) {
      p.peak_bytes += inst.fixed_bytes;
      report.pareto.push_back(p);
    }
  }
  return report;
}

}  // namespace shardscope
