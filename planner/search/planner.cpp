// Planner: batch-size scheduler over exact per-batch solves, whole-model baselines and the Pareto front.
#include "planner/search/planner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/units.hpp"
#include "planner/cost/cost_model.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/program/memory_peak.hpp"
#include "planner/program/schedule.hpp"
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

double minimum_peak(const McProblem& p) { return minimum_peak(p, transient_thresholds(p)); }

// Each operator's cost under the search's model.
std::vector<ItemCost> operator_item_costs(const CostModel& model, const std::vector<OperatorChoice>& choices,
                                          std::int64_t micro_batch) {
  std::vector<ItemCost> out;
  out.reserve(choices.size());
  for (std::size_t i = 0; i < choices.size(); ++i) out.push_back(model.cost(i, choices[i], micro_batch));
  return out;
}

// A whole plan under the topology model: its iteration time is its program scheduled on two streams with
// uncontended collectives (what the simulator runs), so neighbours that share a window are priced as they
// are (the search's per-operator sum assumed alike neighbours); its peak memory is the program's, over
// every order its streams can run in (program/memory_peak.hpp; the search's per-operator transient is a
// bound on it). The paper model is separable: its plan time is the sum of its operators' costs.
struct WholePlan {
  double seconds = 0;
  double peak_bytes = 0;  // runtime reserve included
};
WholePlan scheduled_plan(const Scenario& scenario, const Calibration& calibration, const Plan& plan) {
  const ExecutionOptions& e = scenario.execution;
  const IterationProgram program =
      build_iteration_program(scenario, calibration, plan, e.prefetch_depth, !e.overlap, e.bucket_bytes);
  const CollectiveCost collectives(scenario.cluster, scenario.training.group_size, calibration,
                                   plan_collectives(e, plan));
  return {schedule_program(program, collectives).iteration_seconds, program_peak_bytes(program)};
}

bool schedules_plans(const Scenario& scenario) {
  return scenario.planner.cost_model == CostModelKind::topology;
}

std::vector<OperatorChoice> picked_choices(const PlanInstance& inst, const std::vector<int>& picks) {
  std::vector<OperatorChoice> out;
  out.reserve(picks.size());
  for (std::size_t c = 0; c < picks.size(); ++c)
    out.push_back(inst.choices[c][static_cast<std::size_t>(picks[c])]);
  return out;
}

// The plan of one solved batch size, with the predicted figures of its row.
Plan make_plan(const Scenario& scenario, const SearchSpace& space, const PlanInstance& inst,
               const std::vector<int>& picks, const BatchRow& row) {
  Plan plan;
  plan.strategy = space.name;
  plan.collectives = strategy_collectives(scenario, space.name);
  plan.micro_batch = row.micro_batch;
  plan.gradient_accumulation_steps = row.gradient_accumulation_steps;
  plan.operators = picked_choices(inst, picks);
  plan.predicted.iteration_seconds = row.iteration_seconds;
  plan.predicted.samples_per_second = row.samples_per_second;
  plan.predicted.tokens_per_second =
      row.samples_per_second * static_cast<double>(scenario.model.sequence_length);
  plan.predicted.peak_memory_bytes = row.peak_memory_bytes;
  return plan;
}

// What one batch size's solve found; picks index each class's items when solved.
struct BatchOutcome {
  BatchStatus status = BatchStatus::does_not_fit;
  std::vector<int> picks;
  double seconds = kInf;
  double lower_bound_seconds = 0;
  double lp_seconds = kInf;  // per-operator spaces: the batch's LP bound (when it fits)
  bool bounded = false;      // per-operator spaces: the smallest peak fits, so lp_seconds was computed
  std::int64_t solver_cells = 0;
};

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

// Per-operator strategy: the exact knapsack, skipped (pruned) when the LP bound cannot beat best_throughput.
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

// Turns batch boundaries into observer calls: the cancellation check and a fraction of `total_units` that
// only grows (one unit per batch size of each strategy, plus any final step the caller adds).
// What a strategy's scan reports at its batch boundaries: live to the observer (ProgressMeter), or recorded
// on a worker thread and replayed in order later (RecordedScan).
class ScanEvents {
 public:
  virtual ~ScanEvents() = default;
  virtual void check_cancelled() const = 0;
  virtual void batch_solved(std::string_view strategy, const BatchRow& row) = 0;
  virtual void advance(std::size_t units) = 0;
};

class ProgressMeter : public ScanEvents {
 public:
  ProgressMeter(PlanObserver& observer, std::size_t total_units) : observer_(observer), total_(total_units) {}
  PlanObserver& observer() const { return observer_; }
  void check_cancelled() const override {
    if (observer_.cancelled()) throw PlanCancelled();
  }
  void batch_solved(std::string_view strategy, const BatchRow& row) override {
    observer_.batch_solved(strategy, row);
  }
  void advance(std::size_t units) override {
    if (units == 0) return;
    done_ = std::min(total_, done_ + units);
    observer_.progress(done_ == total_ ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_));
  }
  // Reports the rest, so the last report is exactly 1 (also for a call that had no units at all).
  void finish() {
    if (done_ < total_) advance(total_ - done_);
    if (total_ == 0) observer_.progress(1.0);
  }

 private:
  PlanObserver& observer_;
  std::size_t total_;
  std::size_t done_ = 0;
};

// A scan on a worker thread: its batch rows and progress units, kept for the planning thread to report in
// strategy order; it stops (PlanCancelled) once the planning thread raises `stop`.
class RecordedScan : public ScanEvents {
 public:
  explicit RecordedScan(const std::atomic<bool>& stop) : stop_(stop) {}
  void check_cancelled() const override {
    if (stop_.load(std::memory_order_relaxed)) throw PlanCancelled();
  }
  void batch_solved(std::string_view /*strategy*/, const BatchRow& row) override {
    events_.push_back({row, 0});
  }
  void advance(std::size_t units) override { events_.back().units += units; }
  // The same calls, made now on the live meter (with its cancellation check at each batch boundary).
  void replay(const std::string& strategy, ProgressMeter& meter) const {
    for (std::size_t k = 0; k < events_.size(); ++k) {
      meter.check_cancelled();
      meter.batch_solved(strategy, events_[k].row);
      meter.advance(events_[k].units);
    }
  }

 private:
  struct Event {
    BatchRow row;
    std::size_t units;
  };
  const std::atomic<bool>& stop_;
  std::vector<Event> events_;
};

// Copies the configuration fields (digests included) that record_plan_configuration computed once.
void copy_plan_configuration(Plan& plan, const Plan& configured) {
  plan.model_digest = configured.model_digest;
  plan.group_size = configured.group_size;
  plan.precision = configured.precision;
  plan.sequence_length_tokens = configured.sequence_length_tokens;
  plan.cost_model = configured.cost_model;
  plan.scenario_digest = configured.scenario_digest;
  plan.calibration_digest = configured.calibration_digest;
}

Plan configured_plan(const Scenario& scenario, const Calibration& calibration) {
  Plan configured;
  record_plan_configuration(configured, scenario, calibration);
  return configured;
}

// The whole plan (scheduled_plan; without a schedule, the search's own time and peak) of a solved pick.
WholePlan whole_plan_of(const Scenario& scenario, const Calibration& calibration, const SearchSpace& space,
                        TrainingStep step, const PlanInstance& inst, const BatchOutcome& solved) {
  const WholePlan whole{solved.seconds, selection_peak_bytes(inst.problem, solved.picks) + inst.fixed_bytes};
  if (!schedules_plans(scenario)) return whole;
  Plan plan;
  plan.strategy = space.name;
  plan.collectives = strategy_collectives(scenario, space.name);
  plan.micro_batch = step.micro_batch;
  plan.gradient_accumulation_steps = step.accumulation_steps;
  plan.operators = picked_choices(inst, solved.picks);
  return scheduled_plan(scenario, calibration, plan);
}

// One search of one batch size: its instance, its solve (pruned only against a throughput the scan had
// already reached when the work started, so the scan's own decision can only prune more, never less) and,
// when solved, its whole plan.
struct InstanceSolve {
  PlanInstance inst;
  BatchOutcome outcome;
  WholePlan whole_plan;
};

InstanceSolve solve_instance(const Scenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, TrainingStep step,
                             CostModel::NeighbourBuffers neighbours, double best_known) {
  InstanceSolve s;
  s.inst = build_instance(scenario, calibration, space, step, neighbours);
  s.outcome = space.uniform ? solve_uniform(s.inst) : solve_per_operator(s.inst, best_known);
  s.whole_plan = {s.outcome.seconds, 0};
  if (s.outcome.status == BatchStatus::solved) {
    s.whole_plan = whole_plan_of(scenario, calibration, space, step, s.inst, s.outcome);
  }
  return s;
}

// One batch size's work, independent of the other batch sizes: the search with neighbours' buffers counted
// as alike and, when that pick's whole plan holds more than the memory limit, the search again under the
// bound that holds whatever neighbours choose (NeighbourBuffers::any_choice); for the first batch size also
// the smallest memory any plan needs (what the bounded search can promise: at this limit it finds a plan).
struct BatchWork {
  InstanceSolve alike;
  std::optional<InstanceSolve> any_choice;
  double minimum_memory_bytes = kInf;  // first batch size only
};

BatchWork work_batch(const Scenario& scenario, const Calibration& calibration, const SearchSpace& space,
                     TrainingStep step, double best_known, bool first) {
  BatchWork w;
  w.alike =
      solve_instance(scenario, calibration, space, step, CostModel::NeighbourBuffers::alike, best_known);
  const double limit = static_cast<double>(scenario.training.memory_limit_bytes);
  if (w.alike.outcome.status == BatchStatus::solved && w.alike.whole_plan.peak_bytes > limit * (1 + 1e-12)) {
    w.any_choice = solve_instance(scenario, calibration, space, step, CostModel::NeighbourBuffers::any_choice,
                                  best_known);
  }
  if (first) {
    w.minimum_memory_bytes =
        minimum_memory_bytes(space, w.any_choice ? w.any_choice->inst
                                                 : build_instance(scenario, calibration, space, step,
                                                                  CostModel::NeighbourBuffers::any_choice));
  }
  return w;
}

// The scan's own pruning, against every batch size before this one: turns a per-operator outcome found
// against a lower throughput into what solve_per_operator would return against `best_throughput`.
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

// The next batch sizes worked on ahead, on helper threads (up to `window` - 1 of them), while the scan takes
// them in order: batch sizes are independent, and the scan replays its sequential decisions on the results.
class BatchesAhead {
 public:
  BatchesAhead(std::function<BatchWork(std::size_t, double)> work, std::size_t count, std::size_t window)
      : work_(std::move(work)), pending_(count), window_(std::max<std::size_t>(1, window)) {}
  BatchesAhead(const BatchesAhead&) = delete;
  BatchesAhead& operator=(const BatchesAhead&) = delete;
  ~BatchesAhead() {
    for (auto& f : pending_) {
      if (f.valid()) f.wait();
    }
  }
  BatchWork take(std::size_t k, double best_known) {
    for (std::size_t ahead = k + 1; ahead < std::min(pending_.size(), k + window_); ++ahead) {
      if (pending_[ahead].valid()) continue;
      try {
        pending_[ahead] = std::async(std::launch::async, work_, ahead, best_known);
      } catch (const std::system_error&) {
        throw std::bad_alloc();  // no thread to be had: the process is out of memory or address space
      }
    }
    return pending_[k].valid() ? pending_[k].get() : work_(k, best_known);
  }

 private:
  std::function<BatchWork(std::size_t, double)> work_;
  std::vector<std::future<BatchWork>> pending_;
  std::size_t window_;
};

// Helper threads for the batch scan of the planning thread's own strategy (the baselines' workers scan
// alone).
std::size_t thread_count(int threads) {
  return threads > 0 ? static_cast<std::size_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
}

// Keeps the `limit` plans with the highest predicted throughput in `kept`, fastest first.
void keep_fastest(std::vector<Plan>& kept, Plan plan, std::size_t limit) {
  const auto slower = [](const Plan& a, const Plan& b) {
    return a.predicted.samples_per_second > b.predicted.samples_per_second;
  };
  kept.insert(std::upper_bound(kept.begin(), kept.end(), plan, slower), std::move(plan));
  if (kept.size() > limit) kept.pop_back();
}

// With `kept`: also keeps the kept_limit fastest solved batch sizes' plans there (for refinement), in the
// scan's order on the calling thread whatever `window` is.
StrategyResult scan_strategy(const Scenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, const std::vector<std::int64_t>& micro_batches,
                             const Plan& configured, ScanEvents& meter, std::size_t window = 1,
                             std::vector<Plan>* kept = nullptr, std::size_t kept_limit = 0) {
  StrategyResult result;
  result.strategy = space.name;
  const auto step_at = [&](std::size_t k) {
    return TrainingStep{micro_batches[k], accumulation_steps_for(scenario, micro_batches[k])};
  };
  BatchesAhead ahead(
      [&](std::size_t k, double best_known) {
        return work_batch(scenario, calibration, space, step_at(k), best_known, k == 0);
      },
      micro_batches.size(), window);
  double best_throughput = 0;
  for (std::size_t k = 0; k < micro_batches.size(); ++k) {
    meter.check_cancelled();
    const TrainingStep step = step_at(k);
    BatchWork work = ahead.take(k, best_throughput);
    if (k == 0) result.minimum_memory_bytes = work.minimum_memory_bytes;
    // The scan's decisions, as if it had solved this batch size now: the first search, then (when its pick
    // stays and holds too much) the bounded one.
    InstanceSolve* chosen = &work.alike;
    prune_as_scan(space, chosen->inst, chosen->outcome, best_throughput);
    result.solver_cells += chosen->outcome.solver_cells;
    if (chosen->outcome.status == BatchStatus::solved && work.any_choice) {
      chosen = &*work.any_choice;
      prune_as_scan(space, chosen->inst, chosen->outcome, best_throughput);
      result.solver_cells += chosen->outcome.solver_cells;
    }
    const PlanInstance& inst = chosen->inst;
    const BatchOutcome& outcome = chosen->outcome;
    const BatchRow row = batch_row(step, inst, outcome, chosen->whole_plan);
    result.batches.push_back(row);
    meter.batch_solved(space.name, row);
    if (row.status == BatchStatus::does_not_fit) {
      meter.advance(micro_batches.size() - k);  // memory only grows with the batch: the scan ends here
      break;
    }
    meter.advance(1);
    if (kept != nullptr && kept_limit > 0 && row.status == BatchStatus::solved) {
      keep_fastest(*kept, make_plan(scenario, space, inst, outcome.picks, row), kept_limit);
    }
    if (row.status == BatchStatus::solved && row.samples_per_second > best_throughput) {
      best_throughput = row.samples_per_second;
      result.fits = true;
      result.lower_bound_seconds = row.lower_bound_seconds;
      result.search_seconds = outcome.seconds;
      result.plan = make_plan(scenario, space, inst, outcome.picks, row);
    }
  }
  if (!result.fits) {
    result.shortfall_bytes =
        result.minimum_memory_bytes - static_cast<double>(scenario.training.memory_limit_bytes);
    // The solvers find a plan whenever the lightest one fits in exact bytes, so a space that fits nowhere
    // lacks memory; anything else is a solver bug, never reported as a negative shortfall.
    if (!(result.shortfall_bytes > 0)) {
      throw std::logic_error("planner: " + space.name + " fits no batch size although its smallest plan (" +
                             std::to_string(result.minimum_memory_bytes) + " bytes) is within the limit");
    }
    return result;
  }
  copy_plan_configuration(result.plan, configured);
  result.operator_costs = plan_operator_costs(scenario, calibration, result.plan);
  return result;
}

// The spaces plan_scenario scans, in order: the product's, then the baselines the cost model supports.
std::vector<SearchSpace> scenario_spaces(const Scenario& scenario, bool with_baselines) {
  const bool paper = scenario.planner.cost_model == CostModelKind::paper;
  std::vector<SearchSpace> spaces{paper ? osdp_space(scenario.training, true)
                                        : full_space(scenario.training)};
  if (!with_baselines) return spaces;
  for (SearchSpace& space : baseline_spaces(scenario.training)) {
    const bool paper_only_scopes =
        space.scopes.size() <= 2 &&
        std::all_of(space.scopes.begin(), space.scopes.end(),
                    [](const Scopes& s) { return s.name() == "NNN" || s.name() == "GGG"; }) &&
        !space.secondary_parameter_partition;
    if (paper && !paper_only_scopes) continue;  // the paper model knows only DP and ZDP
    spaces.push_back(std::move(space));
  }
  return spaces;
}

// The full space holds every baseline's plan, so the product never reports a slower one: when a baseline's
// whole plan (scheduled_plan) beats the search's pick (whose objective assumed alike neighbours), it
// becomes the plan, named as such.
void adopt_faster_baseline(PlanReport& report, const std::vector<OperatorPin>& pins) {
  if (!report.best.fits) return;
  const StrategyResult* faster = nullptr;
  double best = report.best.plan.predicted.samples_per_second;
  for (const StrategyResult& b : report.baselines) {
    if (b.fits && b.plan.predicted.samples_per_second > best && plan_honours_pins(pins, b.plan.operators)) {
      best = b.plan.predicted.samples_per_second;
      faster = &b;
    }
  }
  if (faster == nullptr) return;
  report.best.adopted_from = faster->strategy;
  report.best.search_pick = report.best.plan.predicted;
  report.best.plan.operators = faster->plan.operators;
  report.best.plan.collectives = faster->plan.collectives;
  report.best.plan.micro_batch = faster->plan.micro_batch;
  report.best.plan.gradient_accumulation_steps = faster->plan.gradient_accumulation_steps;
  report.best.plan.predicted = faster->plan.predicted;
  report.best.operator_costs = faster->operator_costs;
}

// Passes on only the cancellation of another observer (a phase that reports no progress of its own).
class CancellationOnly final : public PlanObserver {
 public:
  explicit CancellationOnly(const PlanObserver& observer) : observer_(observer) {}
  bool cancelled() const override { return observer_.cancelled(); }

 private:
  const PlanObserver& observer_;
};

// BatchPolicy::equal: every baseline re-planned at the plan's micro-batch and accumulation steps (a baseline
// that does not fit there reports its shortfall at that batch). A baseline faster than the plan at the same
// batch (one its own scan pruned) is adopted, so the plan stays at least as fast as every baseline shown.
void compare_at_equal_batch(PlanReport& report, const Scenario& scenario, const Calibration& calibration,
                            const std::vector<SearchSpace>& spaces, const Plan& configured,
                            const ProgressMeter& meter) {
  report.batch_policy = BatchPolicy::equal;
  if (!report.best.fits) return;  // no plan, no batch to compare at: the baselines keep their own scans
  CancellationOnly quiet(meter.observer());
  Scenario at_plan = scenario;
  at_plan.training.micro_batch = report.best.plan.micro_batch;
  at_plan.training.gradient_accumulation_steps = report.best.plan.gradient_accumulation_steps;
  for (std::size_t index = 1; index < spaces.size(); ++index) {
    meter.check_cancelled();
    ProgressMeter phase(quiet, 1);
    // Recorded against the scenario as given (its micro-batch may be free), as the plan is: `configured`.
    report.baselines[index - 1] =
        scan_strategy(at_plan, calibration, spaces[index], {report.best.plan.micro_batch}, configured, phase);
  }
  adopt_faster_baseline(report, spaces.front().pins);
}

}  // namespace

CollectiveModel strategy_collectives(const Scenario& scenario, const std::string& strategy) {
  return scenario.planner.cost_model == CostModelKind::topology
             ? collective_model_for(scenario.execution, strategy)
             : CollectiveModel::ring;
}

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

namespace {

// The report's candidates: the plan, the search's pick at each kept batch size and every fitting baseline,
// distinct, fastest first (ties keep that order), at most `limit`.
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

// Near-optimal alternatives to the search's pick, for refinement: the exact search again at the pick's batch
// size with less memory to spend (the least any plan needs plus these fractions of what lies between it and
// what the search had), each a different trade of memory for time that the search's separable prices rank
// behind the pick but a schedule or a simulation may not.
constexpr double kAlternativeBudgets[] = {0.9, 0.75, 0.5, 0.25};

std::vector<Plan> alternative_plans(const Scenario& scenario, const Calibration& calibration,
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
    plan.collectives = strategy_collectives(scenario, space.name);
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

PlanObserver& observer_or_default(PlanObserver* observer) {
  static PlanObserver silent;
  return observer != nullptr ? *observer : silent;
}

}  // namespace

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

PlanInstance build_instance(const Scenario& scenario, const Calibration& calibration,
                            const SearchSpace& space, std::int64_t micro_batch) {
  return build_instance(scenario, calibration, space,
                        TrainingStep{micro_batch, scenario.training.gradient_accumulation_steps});
}

PlanInstance build_instance(const Scenario& scenario, const Calibration& calibration,
                            const SearchSpace& space, TrainingStep step,
                            CostModel::NeighbourBuffers neighbours) {
  const std::unique_ptr<CostModel> model = make_cost_model(scenario, calibration, step.accumulation_steps,
                                                           strategy_collectives(scenario, space.name));
  // What the space lets neighbours gather bounds each transient under any_choice (DDP gathers nothing).
  const auto any_scope = [&](auto sharded) {
    return std::any_of(space.scopes.begin(), space.scopes.end(), sharded);
  };
  model->set_neighbour_buffers(neighbours,
                               any_scope([](const Scopes& s) { return s.parameters != ShardScope::N; }),
                               any_scope([](const Scopes& s) { return s.gradients != ShardScope::N; }));
  PlanInstance inst;
  inst.fixed_bytes = model->fixed_bytes();
  inst.samples_per_iteration = model->samples_per_iteration(step.micro_batch);
  inst.problem.capacity_bytes = static_cast<double>(scenario.training.memory_limit_bytes) - inst.fixed_bytes;
  // Operators of one cost class (the model's key) that enumerate the same choices (splittable or not) share
  // their item lists: the first of each shape is priced, later ones copy its class under their own names.
  using Shape = std::pair<std::size_t, bool>;  // cost class, splittable
  const std::vector<std::size_t> cost_class = model->cost_classes();
  std::map<Shape, std::size_t> class_of_shape;  // shape -> index of its first class in inst.problem
  for (std::size_t i = 0; i < scenario.model.operators.size(); ++i) {
    const Operator& op = scenario.model.operators[i];
    // A pinned operator is priced on its own (its choice set differs from its layer twins').
    const bool pinned = std::any_of(space.pins.begin(), space.pins.end(),
                                    [i](const OperatorPin& pin) { return pin.operator_index == i; });
    const Shape shape{cost_class[i], op.splittable};
    if (auto it = class_of_shape.find(shape); !pinned && it != class_of_shape.end()) {
      inst.problem.classes.push_back(inst.problem.classes[it->second]);
      std::vector<OperatorChoice> choices = inst.choices[it->second];
      for (OperatorChoice& c : choices) c.name = op.name;
      inst.choices.push_back(std::move(choices));
      continue;
    }
    std::vector<OperatorChoice> choices = enumerate_choices(space, op);
    if (pinned) {
      std::erase_if(choices, [&](const OperatorChoice& c) {
        return std::any_of(space.pins.begin(), space.pins.end(),
                           [&](const OperatorPin& pin) { return pin.operator_index == i && !pin.admits(c); });
      });
      if (choices.empty()) {
        std::string what;
        for (const OperatorPin& pin : space.pins) {
          if (pin.operator_index == i) what += (what.empty() ? "" : "; ") + pin.describe(op.name);
        }
        throw InputError(scenario.source_file, 0, "pins",
                         "no choice of the " + space.name + " space meets the pin " + what);
      }
    }
    McProblem priced;  // this one operator's items, one per choice
    priced.classes.emplace_back();
    for (const OperatorChoice& c : choices) {
      const ItemCost cost = model->cost(i, c, step.micro_batch);
      priced.classes[0].push_back({cost.seconds, cost.resident_bytes, cost.transient_bytes});
    }
    if (!space.uniform) {  // a uniform space needs every choice in every class, dominated or not
      const std::vector<std::vector<int>> undominated = remove_dominated(priced);
      std::vector<OperatorChoice> kept;
      for (int k : undominated[0]) kept.push_back(choices[static_cast<std::size_t>(k)]);
      choices = std::move(kept);
    }
    if (!pinned) class_of_shape.emplace(shape, inst.problem.classes.size());
    inst.problem.classes.push_back(std::move(priced.classes[0]));
    inst.choices.push_back(std::move(choices));
  }
  return inst;
}

StrategyResult plan_strategy(const Scenario& scenario, const Calibration& calibration,
                             const SearchSpace& space, PlanObserver* observer, int threads) {
  validate_scenario(scenario);
  const std::vector<std::int64_t> micro_batches = batch_candidates(scenario);
  ProgressMeter meter(observer_or_default(observer), micro_batches.size());
  meter.check_cancelled();
  meter.observer().strategy_started(space.name, 0, 1);
  StrategyResult result = scan_strategy(scenario, calibration, space, micro_batches,
                                        configured_plan(scenario, calibration), meter, thread_count(threads));
  meter.finish();
  return result;
}

namespace {

// Throws PlanDoesNotFit when `peak_bytes` is over the memory limit (the search's own test: a plan fits when
// its peak is at most the limit; a relative 1e-12 absorbs the rounding of adding the fixed bytes).
void check_plan_fits(const Plan& plan, const Scenario& scenario, double peak_bytes) {
  const double limit = static_cast<double>(scenario.training.memory_limit_bytes);
  if (peak_bytes <= limit * (1 + 1e-12)) return;
  const double device = static_cast<double>(scenario.cluster.gpu.memory_bytes);
  const std::string where = plan.source.file.empty() ? "plan '" + plan.strategy + "'" : plan.source.file;
  std::string message = where + ": the plan needs " + units::format_bytes(peak_bytes) +
                        " per GPU at its peak, over the memory limit of " + units::format_bytes(limit) +
                        " by " + units::format_bytes(peak_bytes - limit);
  if (peak_bytes > device) {
    message += " (and over the device's " + units::format_bytes(device) + " by " +
               units::format_bytes(peak_bytes - device) + ")";
  }
  throw PlanDoesNotFit(message + "; re-plan with `shardscope plan --out` for this scenario", peak_bytes,
                       limit);
}

}  // namespace

PlanPrediction evaluate_plan(const Scenario& scenario, const Calibration& calibration, const Plan& plan) {
  validate_scenario(scenario);
  (void)check_plan_configuration(plan, scenario, calibration);  // callers that show warnings check first
  const std::unique_ptr<CostModel> model = make_cost_model(
      scenario, calibration, plan.gradient_accumulation_steps, plan_collectives(scenario.execution, plan));
  McProblem problem;
  std::vector<int> picks;
  PlanPrediction out;
  for (const ItemCost& c : operator_item_costs(*model, plan.operators, plan.micro_batch)) {
    problem.classes.push_back({{c.seconds, c.resident_bytes, c.transient_bytes}});
    picks.push_back(0);
    out.iteration_seconds += c.seconds;
  }
  out.peak_memory_bytes = selection_peak_bytes(problem, picks) + model->fixed_bytes();
  if (schedules_plans(scenario)) {
    const WholePlan whole_plan = scheduled_plan(scenario, calibration, plan);
    out.iteration_seconds = whole_plan.seconds;
    out.peak_memory_bytes = whole_plan.peak_bytes;
  }
  out.samples_per_second = model->samples_per_iteration(plan.micro_batch) / out.iteration_seconds;
  out.tokens_per_second = out.samples_per_second * static_cast<double>(scenario.model.sequence_length);
  check_plan_fits(plan, scenario, out.peak_memory_bytes);
  return out;
}

std::vector<OperatorCost> plan_operator_costs(const Scenario& scenario, const Calibration& calibration,
                                              const Plan& plan) {
  const std::unique_ptr<CostModel> model = make_cost_model(
      scenario, calibration, plan.gradient_accumulation_steps, plan_collectives(scenario.execution, plan));
  const std::vector<ItemCost> costs = operator_item_costs(*model, plan.operators, plan.micro_batch);
  std::vector<OperatorCost> out;
  out.reserve(costs.size());
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    out.push_back({costs[i], model->memory(i, plan.operators[i], plan.micro_batch)});
  }
  return out;
}

namespace {

// The Pareto front of `space` at one training step, its peaks with the runtime reserve, up to the device's
// memory.
std::vector<ParetoPoint> pareto_points(const Scenario& scenario, const Calibration& calibration,
                                       const SearchSpace& space, TrainingStep step, std::size_t threads) {
  PlanInstance inst = build_instance(scenario, calibration, space, step);
  inst.problem.capacity_bytes = static_cast<double>(scenario.cluster.gpu.memory_bytes) - inst.fixed_bytes;
  std::vector<ParetoPoint> out;
  DpOptions options;
  options.threads = static_cast<int>(threads);
  for (ParetoPoint p : pareto_front(inst.problem, options)) {
    p.peak_bytes += inst.fixed_bytes;
    out.push_back(p);
  }
  return out;
}

// Scans the baseline spaces (spaces[1..]) on worker threads while the planning thread scans the product's
// space; each strategy is independent and deterministic, so the results do not depend on the threads.
class BaselineWorkers {
 public:
  BaselineWorkers(const Scenario& scenario, const Calibration& calibration,
                  const std::vector<SearchSpace>& spaces, const std::vector<std::int64_t>& micro_batches,
                  const Plan& configured, std::size_t thread_limit)
      : scenario_(&scenario),
        calibration_(&calibration),
        spaces_(&spaces),
        micro_batches_(&micro_batches),
        configured_(&configured),
        slots_(spaces.size()) {
    // One thread only: the planning thread scans every strategy itself (take() runs them in order).
    if (spaces.size() <= 1 || thread_limit <= 1) return;
    const std::size_t threads = std::min<std::size_t>(spaces.size() - 1, thread_limit);
    for (std::size_t t = 0; t < threads; ++t) {
      // A thread that cannot be had means the process is out of memory or address space: the workers
      // started so far stop and are joined, and planning fails as out of memory.
      try {
        workers_.emplace_back([&, this] {
          for (std::size_t index = next_.fetch_add(1) + 1; index < spaces.size();
               index = next_.fetch_add(1) + 1) {
            Slot& slot = slots_[index];
            try {
              slot.events = std::make_unique<RecordedScan>(stop_);
              slot.result = scan_strategy(scenario, calibration, spaces[index], micro_batches, configured,
                                          *slot.events);
            } catch (...) {
              slot.error = std::current_exception();
            }
            {
              const std::lock_guard<std::mutex> lock(mutex_);
              slot.done = true;
            }
            done_.notify_all();
          }
        });
      } catch (const std::system_error&) {
        stop_.store(true);
        for (std::thread& w : workers_) w.join();
        throw std::bad_alloc();
      }
    }
  }
  BaselineWorkers(const BaselineWorkers&) = delete;
  BaselineWorkers& operator=(const BaselineWorkers&) = delete;
  ~BaselineWorkers() {
    stop_.store(true);
    for (std::thread& w : workers_) w.join();
  }

  // Waits for strategy `index`, polling the meter's cancellation while it waits; reports its batches and
  // returns its result (or rethrows what its scan threw).
  StrategyResult take(std::size_t index, const std::string& name, ProgressMeter& meter) {
    if (workers_.empty()) {
      return scan_strategy(*scenario_, *calibration_, (*spaces_)[index], *micro_batches_, *configured_,
                           meter);
    }
    Slot& slot = slots_[index];
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_.wait_for(lock, std::chrono::milliseconds(20), [&] { return slot.done; })) {
      lock.unlock();
      stop_if_cancelled(meter);
      lock.lock();
    }
    lock.unlock();
    if (slot.error) std::rethrow_exception(slot.error);
    slot.events->replay(name, meter);
    return std::move(slot.result);
  }

  // The meter's cancellation check; on cancel the workers stop at their next batch boundary.
  void stop_if_cancelled(const ProgressMeter& meter) {
    try {
      meter.check_cancelled();
    } catch (const PlanCancelled&) {
      stop_.store(true);
      throw;
    }
  }

 private:
  struct Slot {
    std::unique_ptr<RecordedScan> events;
    StrategyResult result;
    std::exception_ptr error;
    bool done = false;  // guarded by mutex_
  };
  const Scenario* scenario_;
  const Calibration* calibration_;
  const std::vector<SearchSpace>* spaces_;
  const std::vector<std::int64_t>* micro_batches_;
  const Plan* configured_;
  std::vector<Slot> slots_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable done_;
  std::vector<std::thread> workers_;
};

}  // namespace

PlanReport plan_scenario(const Scenario& scenario, const Calibration& calibration, bool with_baselines,
                         PlanObserver* observer, int threads) {
  return plan_scenario(scenario, calibration, PlanRequest{with_baselines, 0, {}}, observer, threads);
}

PlanReport plan_scenario(const Scenario& scenario, const Calibration& calibration, const PlanRequest& request,
                         PlanObserver* observer, int threads) {
  validate_scenario(scenario);
  std::vector<SearchSpace> spaces = scenario_spaces(scenario, request.with_baselines);
  spaces.front().pins = request.pins;
  const std::vector<std::int64_t> micro_batches = batch_candidates(scenario);
  const Plan configured = configured_plan(scenario, calibration);  // digests once, not once per strategy
  // One unit per batch size of every strategy, and one for the Pareto front.
  ProgressMeter meter(observer_or_default(observer), spaces.size() * micro_batches.size() + 1);
  PlanReport report;
  meter.check_cancelled();
  BaselineWorkers workers(scenario, calibration, spaces, micro_batches, configured, thread_count(threads));
  meter.observer().strategy_started(spaces[0].name, 0, static_cast<int>(spaces.size()));
  // (A cancel here leaves through ~BaselineWorkers, which stops and joins the workers.)
  std::vector<Plan> per_batch;  // the search's pick at its fastest batch sizes, for the candidates
  report.best = scan_strategy(scenario, calibration, spaces[0], micro_batches, configured, meter,
                              thread_count(threads), &per_batch, request.candidate_plans);
  // The front at the search's own pick, while the baselines run; recomputed below only when a baseline's
  // plan is adopted at another batch size.
  std::vector<ParetoPoint> pareto;
  TrainingStep pareto_step;
  if (report.best.fits) {
    pareto_step = {report.best.plan.micro_batch, report.best.plan.gradient_accumulation_steps};
    pareto = pareto_points(scenario, calibration, spaces.front(), pareto_step, thread_count(threads));
  }
  for (std::size_t index = 1; index < spaces.size(); ++index) {
    workers.stop_if_cancelled(meter);
    meter.observer().strategy_started(spaces[index].name, static_cast<int>(index),
                                      static_cast<int>(spaces.size()));
    report.baselines.push_back(workers.take(index, spaces[index].name, meter));
  }
  adopt_faster_baseline(report, request.pins);
  if (scenario.training.batch_policy == BatchPolicy::equal) {
    compare_at_equal_batch(report, scenario, calibration, spaces, configured, meter);
  }
  if (request.candidate_plans > 0) {
    std::vector<Plan> alternatives;
    if (report.best.fits)
      alternatives = alternative_plans(scenario, calibration, spaces.front(), report.best.plan, configured);
    report.candidates = candidate_plans(report, std::move(per_batch), std::move(alternatives),
                                        request.candidate_plans, configured);
  }
  meter.check_cancelled();
  if (report.best.fits) {
    // At the best plan's batch size, with the curve shown up to the device's memory.
    const Plan& best = report.best.plan;
    if (best.micro_batch != pareto_step.micro_batch ||
        best.gradient_accumulation_steps != pareto_step.accumulation_steps) {
      pareto = pareto_points(scenario, calibration, spaces.front(),
                             TrainingStep{best.micro_batch, best.gradient_accumulation_steps},
                             thread_count(threads));
    }
    report.pareto = std::move(pareto);
  }
  meter.finish();
  return report;
}

}  // namespace shardscope
