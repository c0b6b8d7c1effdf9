// Solving one batch size: uniform and per-operator spaces, the smallest peak, and the bounded re-search.
#include "planner/search/batch_solve.hpp"

#include <algorithm>

namespace shardscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double minimum_peak(const McProblem& p, const std::vector<double>& thresholds) {
  // Repeated layers share a representative class: its lightest item is found once per threshold, and the
  // sum still runs class by class in order.
  const std::vector<std::size_t> rep = class_representatives(p);
  std::vector<double> lightest(p.classes.size(), kInf);
  double best = kInf;
  for (double t : thresholds) {
    for (std::size_t c = 0; c < p.classes.size(); ++c) {
      if (rep[c] != c) continue;
      double light = kInf;
      for (const McItem& it : p.classes[c]) {
        if (it.transient_bytes <= t) light = std::min(light, it.resident_bytes);
      }
      lightest[c] = light;
    }
    double resident = 0;
    for (std::size_t c = 0; c < p.classes.size(); ++c) resident += lightest[rep[c]];
    best = std::min(best, resident + t);
  }
  return best;
}

// Whole-model strategy: every operator takes the same option (all classes list them alike); the fastest that
// fits is exact, so it is its own lower bound.
BatchOutcome solve_uniform(const PlanInstance& inst) {
  BatchOutcome out;
  for (std::size_t j = 0; j < inst.problem.classes[0].size(); ++j) {
    std::vector<int> candidate(inst.problem.classes.size(), static_cast<int>(j));
    if (selection_peak_bytes(inst.problem, candidate) > inst.problem.capacity_bytes) continue;
    const double seconds = selection_seconds(inst.problem, candidate);
    if (seconds < out.seconds) {
      out.seconds = seconds;
      out.picks = std::move(candidate);
    }
  }
  if (out.picks.empty()) return out;
  out.status = BatchStatus::solved;
  out.lower_bound_seconds = out.seconds;
  return out;
}

// The smallest peak memory per GPU any plan of the space needs in this instance, runtime reserve included.
double minimum_memory_bytes(const SearchSpace& space, const PlanInstance& inst) {
  if (!space.uniform) return minimum_peak(inst.problem) + inst.fixed_bytes;
  double peak = kInf;
  for (std::size_t j = 0; j < inst.problem.classes[0].size(); ++j) {
    const std::vector<int> candidate(inst.problem.classes.size(), static_cast<int>(j));
    peak = std::min(peak, selection_peak_bytes(inst.problem, candidate));
  }
  return peak + inst.fixed_bytes;
}

// The whole plan (scheduled_plan; without a schedule, the search's own time and peak) of a solved pick.
WholePlan whole_plan_of(const ValidScenario& scenario, const Calibration& calibration,
                        const SearchSpace& space, TrainingStep step, const PlanInstance& inst,
                        const BatchOutcome& solved) {
  const WholePlan whole{solved.seconds, selection_peak_bytes(inst.problem, solved.picks) + inst.fixed_bytes};
  if (!schedules_plans(scenario)) return whole;
  Plan plan;
  plan.strategy = space.name;
  plan.collectives = scenario_collectives(scenario);
  plan.micro_batch = step.micro_batch;
  plan.gradient_accumulation_steps = step.accumulation_steps;
  plan.operators = picked_choices(inst, solved.picks);
  return scheduled_plan(scenario, calibration, plan);
}

InstanceSolve solve_instance(const ValidScenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, TrainingStep step, NeighbourBuffers neighbours,
                             double best_known) {
  InstanceSolve s;
  s.inst = build_instance(scenario, calibration, space, step, neighbours);
  s.outcome = space.uniform ? solve_uniform(s.inst) : solve_per_operator(s.inst, best_known);
  s.whole_plan = {s.outcome.seconds, 0};
  if (s.outcome.status == BatchStatus::solved) {
    s.whole_plan = whole_plan_of(scenario, calibration, space, step, s.inst, s.outcome);
  }
  return s;
}

}  // namespace

double minimum_peak(const McProblem& p) { return minimum_peak(p, transient_thresholds(p)); }

BatchOutcome solve_per_operator(const PlanInstance& inst, double best_throughput) {
  BatchOutcome out;
  const std::vector<double> thresholds = transient_thresholds(inst.problem);
  if (minimum_peak(inst.problem, thresholds) > inst.problem.capacity_bytes) return out;
  // The LP bound of every threshold, computed once: the batch's bound here and the solver's order below.
  const std::vector<double> lp_bounds = lp_bounds_by_threshold(inst.problem, thresholds);
  double lp = kInf;
  for (double bound : lp_bounds) lp = std::min(lp, bound);
  out.lp_seconds = lp;
  out.bounded = true;
  if (best_throughput > 0 && inst.samples_per_iteration / lp <= best_throughput) {
    out.status = BatchStatus::pruned;
    out.lower_bound_seconds = lp;
    return out;
  }
  const McSolution sol = solve_dp(inst.problem, DpOptions{}, thresholds, lp_bounds);
  out.solver_cells = sol.explored;
  if (!sol.feasible) return out;
  out.status = BatchStatus::solved;
  out.seconds = sol.seconds;
  out.lower_bound_seconds = sol.lower_bound_seconds;
  out.picks = sol.picks;
  return out;
}

BatchWork work_batch(const ValidScenario& scenario, const Calibration& calibration, const SearchSpace& space,
                     TrainingStep step, double best_known, bool first) {
  BatchWork w;
  w.alike = solve_instance(scenario, calibration, space, step, NeighbourBuffers::alike, best_known);
  const double limit = static_cast<double>(scenario.training.memory_limit_bytes);
  if (w.alike.outcome.status == BatchStatus::solved && w.alike.whole_plan.peak_bytes > limit * (1 + 1e-12)) {
    w.any_choice =
        solve_instance(scenario, calibration, space, step, NeighbourBuffers::any_choice, best_known);
  }
  if (first) {
    w.minimum_memory_bytes = minimum_memory_bytes(
        space, w.any_choice
                   ? w.any_choice->inst
                   : build_instance(scenario, calibration, space, step, NeighbourBuffers::any_choice));
  }
  return w;
}

void prune_as_scan(const SearchSpace& space, const PlanInstance& inst, BatchOutcome& outcome,
                   double best_throughput) {
  if (space.uniform || !outcome.bounded || outcome.status == BatchStatus::pruned || best_throughput <= 0)
    return;
  if (inst.samples_per_iteration / outcome.lp_seconds > best_throughput) return;
  const double lp = outcome.lp_seconds;
  outcome = BatchOutcome{};
  outcome.status = BatchStatus::pruned;
  outcome.lower_bound_seconds = lp;
  outcome.lp_seconds = lp;
  outcome.bounded = true;
}

}  // namespace shardscope
