// The batch scan: batch sizes solved ahead on a task pool, the scan's decisions replayed in order.
#include "planner/search/batch_scan.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "planner/search/batch_solve.hpp"
#include "planner/search/plan_evaluation.hpp"
#include "planner/search/task_pool.hpp"

namespace shardscope {
namespace {

// A solved row's time and peak are its whole plan's (scheduled_plan; without a schedule, the search's);
// the search's own objective stays in the outcome.
BatchRow batch_row(TrainingStep step, const PlanInstance& inst, const BatchOutcome& outcome,
                   const WholePlan& whole_plan) {
  BatchRow row;
  row.micro_batch = step.micro_batch;
  row.gradient_accumulation_steps = step.accumulation_steps;
  row.status = outcome.status;
  if (outcome.status == BatchStatus::pruned) row.lower_bound_seconds = outcome.lower_bound_seconds;
  if (outcome.status != BatchStatus::solved) return row;
  row.iteration_seconds = whole_plan.seconds;
  row.samples_per_second = inst.samples_per_iteration / whole_plan.seconds;
  row.peak_memory_bytes = whole_plan.peak_bytes;
  row.lower_bound_seconds = outcome.lower_bound_seconds;
  return row;
}

// The next batch sizes worked on ahead, on helper threads (up to `window` - 1 of them), while the scan takes
// them in order: batch sizes are independent, and the scan replays its sequential decisions on the results.
class BatchesAhead {
 public:
  BatchesAhead(std::function<BatchWork(std::size_t, double)> work, std::size_t count, std::size_t window)
      : work_(std::move(work)),
        pending_(count),
        window_(std::max<std::size_t>(1, window)),
        pool_(std::min(window_, std::max<std::size_t>(1, count)) - 1) {}
  BatchWork take(std::size_t k, double best_known) {
    for (std::size_t ahead = k + 1; ahead < std::min(pending_.size(), k + window_); ++ahead) {
      if (pending_[ahead].valid()) continue;
      pending_[ahead] = pool_.submit([this, ahead, best_known] { return work_(ahead, best_known); });
    }
    return pending_[k].valid() ? pending_[k].get() : work_(k, best_known);
  }

 private:
  std::function<BatchWork(std::size_t, double)> work_;
  std::vector<Task<BatchWork>> pending_;
  std::size_t window_;
  TaskPool pool_;  // destroyed first: its helpers are joined while what their tasks use still exists
};

// Keeps the `limit` plans with the highest predicted throughput in `kept`, fastest first.
void keep_fastest(std::vector<Plan>& kept, Plan plan, std::size_t limit) {
  const auto slower = [](const Plan& a, const Plan& b) {
    return a.predicted.samples_per_second > b.predicted.samples_per_second;
  };
  kept.insert(std::upper_bound(kept.begin(), kept.end(), plan, slower), std::move(plan));
  if (kept.size() > limit) kept.pop_back();
}

// The scan's decisions at one batch size, as if it had solved it now: the first search, then (when its pick
// stays and holds too much) the bounded one. Counts the solver cells of what it decides on.
const InstanceSolve& decide_batch(const SearchSpace& space, BatchWork& work, double best_throughput,
                                  StrategyResult& result) {
  InstanceSolve* chosen = &work.alike;
  prune_as_scan(space, chosen->inst, chosen->outcome, best_throughput);
  result.solver_cells += chosen->outcome.solver_cells;
  if (chosen->outcome.status == BatchStatus::solved && work.any_choice) {
    chosen = &*work.any_choice;
    prune_as_scan(space, chosen->inst, chosen->outcome, best_throughput);
    result.solver_cells += chosen->outcome.solver_cells;
  }
  return *chosen;
}

// A scan that fit no batch size: how much memory its smallest plan lacks.
void record_shortfall(const ValidScenario& scenario, const SearchSpace& space, StrategyResult& result) {
  result.shortfall_bytes =
      result.minimum_memory_bytes - static_cast<double>(scenario.training.memory_limit_bytes);
  // The solvers find a plan whenever the lightest one fits in exact bytes, so a space that fits nowhere
  // lacks memory; anything else is a solver bug, never reported as a negative shortfall.
  if (!(result.shortfall_bytes > 0)) {
    throw std::logic_error("planner: " + space.name + " fits no batch size although its smallest plan (" +
                           std::to_string(result.minimum_memory_bytes) + " bytes) is within the limit");
  }
}

}  // namespace

std::vector<std::int64_t> batch_candidates(const Scenario& s) {
  std::vector<std::int64_t> out;
  if (s.training.micro_batch > 0) return {s.training.micro_batch};
  for (std::int64_t b = 1; b <= s.training.max_micro_batch; ++b) {
    if (accumulation_steps_for(s, b) > 0) out.push_back(b);
  }
  return out;
}

int accumulation_steps_for(const Scenario& s, std::int64_t micro_batch) {
  if (s.training.global_batch <= 0) return s.training.gradient_accumulation_steps;
  const std::int64_t per_step = micro_batch * s.cluster.gpus();
  if (s.training.global_batch % per_step != 0) return 0;  // this micro-batch cannot reach the global batch
  const std::int64_t steps = s.training.global_batch / per_step;
  // More steps than supported: never truncated to int, the micro-batch is out (validation makes sure that
  // some micro-batch of the scan remains).
  return steps <= kMaxAccumulationSteps ? static_cast<int>(steps) : 0;
}

std::string_view batch_status_name(BatchStatus status) {
  switch (status) {
    case BatchStatus::solved:
      return "solved";
    case BatchStatus::pruned:
      return "pruned";
    case BatchStatus::does_not_fit:
      return "does-not-fit";
  }
  return "unknown";
}

StrategyResult scan_strategy(const ValidScenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, const std::vector<std::int64_t>& micro_batches,
                             const Plan& configured, ScanEvents& events, const ScanOptions& options) {
  StrategyResult result;
  result.strategy = space.name;
  const auto step_at = [&](std::size_t k) {
    return TrainingStep{micro_batches[k], accumulation_steps_for(scenario, micro_batches[k])};
  };
  BatchesAhead ahead(
      [&](std::size_t k, double best_known) {
        return work_batch(scenario, calibration, space, step_at(k), best_known, k == 0);
      },
      micro_batches.size(), options.window);
  double best_throughput = 0;
  for (std::size_t k = 0; k < micro_batches.size(); ++k) {
    events.check_cancelled();
    BatchWork work = ahead.take(k, best_throughput);
    if (k == 0) result.minimum_memory_bytes = work.minimum_memory_bytes;
    const InstanceSolve& chosen = decide_batch(space, work, best_throughput, result);
    const BatchRow row = batch_row(step_at(k), chosen.inst, chosen.outcome, chosen.whole_plan);
    result.batches.push_back(row);
    events.batch_solved(space.name, row);
    if (row.status == BatchStatus::does_not_fit) {
      events.advance(micro_batches.size() - k);  // memory only grows with the batch: the scan ends here
      break;
    }
    events.advance(1);
    if (row.status != BatchStatus::solved) continue;
    if (options.fastest != nullptr && options.kept_plans > 0) {
      keep_fastest(*options.fastest, make_plan(scenario, space, chosen.inst, chosen.outcome.picks, row),
                   options.kept_plans);
    }
    if (row.samples_per_second > best_throughput) {
      best_throughput = row.samples_per_second;
      result.fits = true;
      result.lower_bound_seconds = row.lower_bound_seconds;
      result.search_seconds = chosen.outcome.seconds;
      result.plan = make_plan(scenario, space, chosen.inst, chosen.outcome.picks, row);
    }
  }
  if (!result.fits) {
    record_shortfall(scenario, space, result);
    return result;
  }
  copy_plan_configuration(result.plan, configured);
  result.operator_costs = plan_operator_costs(scenario, calibration, result.plan);
  PlanProgramFigures figures = plan_program_figures(scenario, calibration, result.plan);
  result.allocated_peak_bytes = figures.allocated_peak_bytes;
  result.communication = std::move(figures.exposure);
  return result;
}

}  // namespace shardscope
