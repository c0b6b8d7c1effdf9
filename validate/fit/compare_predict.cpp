// Predictions for measured iterations: the plan each executed (re-planned and checked by digest), priced by
// the planner and the simulator callback, matched task by task (by the iteration program's task names) for
// the per-operator compute rows and the collective rows (per size band, and per kind by the task before).
#include "validate/fit/compare_predict.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/split_plan.hpp"

namespace shardscope::fit {

namespace {

std::string field(const MeasuredIteration& it, const std::string& key) {
  return "iterations[" + std::to_string(it.index) + "]." + key;
}

bool names_scenario(const std::string& measured, const CompareInputs& in) {
  if (measured == in.scenario.name || measured == in.scenario_file) return true;
  const std::filesystem::path m(measured), s(in.scenario_file);
  return m.filename() == s.filename() || m.stem().string() == in.scenario.name;
}

// The operator a program task works on: the name after its verb ("fwd layer3.mlp #2" -> "layer3.mlp").
std::string operator_of(const std::string& name) {
  std::string rest = name.substr(std::min(name.size(), name.find(' ') + 1));
  const std::size_t hash = rest.find(" #");
  return hash == std::string::npos ? rest : rest.substr(0, hash);
}

// Ranks' compute times more than kStragglerFraction apart: the note naming the slowest rank, else "".
constexpr double kStragglerFraction = 0.05;
std::string straggler_note(const std::vector<double>& compute_seconds) {
  if (compute_seconds.size() < 2) return "";
  const auto slow = std::max_element(compute_seconds.begin(), compute_seconds.end());
  const double fast = *std::min_element(compute_seconds.begin(), compute_seconds.end());
  if (fast <= 0 || *slow / fast - 1 <= kStragglerFraction) return "";
  char text[200];
  std::snprintf(
      text, sizeof text,
      "the ranks' compute differs by %.1f %% (rank %td slowest): the collectives after compute wait "
      "for it, which the model (identical ranks) does not price",
      100 * (*slow / fast - 1), slow - compute_seconds.begin());
  return text;
}

struct PredictedTask {
  bool comm = false;
  bool one_rank = false;  // a collective over a group of one rank: nothing exchanged, nothing to compare
  double seconds = 0;
  double total_bytes = 0;
  std::string collective;  // collectives: "all-reduce after backward" (kind, and the compute task before it)
};

// The compute task a collective follows in the program, by phase: what the rank's caches and streams were
// doing when it was issued (a CPU's collective right after an optimizer update runs at another rate than one
// right after the product that wrote its gradient).
std::string after_phase(const std::optional<Task::Phase>& phase) {
  return phase ? std::string("after ") + to_string(*phase) : std::string("at the iteration's start");
}

// Every task name of the program (micro-steps numbered, at most the first 1024) and what the planner
// charges for each task of that name, in program order (a parameter gathered for the forward and again for
// the backward pass is two tasks of one name).
std::map<std::string, std::vector<PredictedTask>> predicted_tasks(const CompareInputs& in, const Plan& plan) {
  const Scenario& s = in.scenario;
  const IterationProgram program = build_iteration_program(
      ValidScenario(s), in.predict_calibration, plan,
      ProgramOptions{s.execution.prefetch_depth, !s.execution.overlap, s.execution.bucket_bytes});
  const CollectiveCost cost(s.cluster, plan.group_size, in.predict_calibration);
  std::map<std::string, std::vector<PredictedTask>> out;
  const int steps = std::min(program.micro_steps, 1024);
  // A micro-step's collectives issued before its first compute task follow, from the second micro-step
  // on, the previous micro-step's last one.
  const auto is_collective = [](const Task& t) {
    return t.stream == Task::Stream::comm || t.total_bytes > 0;  // serial programs keep one stream
  };
  std::optional<Task::Phase> step_end;
  for (std::size_t i = 0; i < program.step_tasks && i < program.tasks.size(); ++i) {
    if (!is_collective(program.tasks[i])) step_end = program.tasks[i].phase;
  }
  std::optional<Task::Phase> last_compute;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    PredictedTask p;
    p.comm = is_collective(t);
    p.seconds = p.comm ? cost.seconds(t.kind, t.group, t.total_bytes) : t.compute_seconds;
    p.total_bytes = t.total_bytes;
    p.one_rank = p.comm && cost.group_ranks(t.group) == 1;
    if (!p.comm) last_compute = t.phase;
    const int last = i < program.step_tasks ? steps : 1;
    for (int m = 0; m < last; ++m) {
      if (p.comm) {
        const std::optional<Task::Phase> before = (last_compute || m == 0) ? last_compute : step_end;
        p.collective = std::string(to_string(t.kind)) + " " + after_phase(before);
      }
      out[task_name(program, i, m)].push_back(p);
    }
  }
  return out;
}

template <typename Key>
ComparedRow& row_for(std::vector<ComparedRow>& rows, std::map<Key, std::size_t>& index, const Key& key,
                     const std::string& strategy, const std::string& item) {
  const auto it = index.find(key);
  if (it != index.end()) return rows[it->second];
  index.emplace(key, rows.size());
  ComparedRow r;
  r.strategy = strategy;
  r.item = item;
  r.measured = 0;
  r.planner = 0.0;
  r.count = 0;
  rows.push_back(r);
  return rows.back();
}

}  // namespace

Plan measured_plan(const CompareInputs& in, const MeasuredIteration& it) {
  const std::string& file = in.measured.file;
  if (!names_scenario(it.scenario, in)) {
    throw InputError(file, 0, field(it, "scenario"),
                     "measured on scenario '" + it.scenario + "', not on " + in.scenario_file + " ('" +
                         in.scenario.name + "')");
  }
  const Scenario& scenario = in.scenario;
  if (scenario.training.micro_batch > 0 && scenario.training.micro_batch != it.micro_batch) {
    throw InputError(file, 0, field(it, "micro_batch"),
                     std::to_string(it.micro_batch) + ", but the scenario fixes training.micro_batch " +
                         std::to_string(scenario.training.micro_batch));
  }
  const int steps = accumulation_steps_for(scenario, it.micro_batch);
  if (steps == 0) {
    throw InputError(file, 0, field(it, "micro_batch"),
                     std::to_string(it.micro_batch) + " on " + std::to_string(scenario.cluster.gpus()) +
                         " ranks does not reach the scenario's training.global_batch " +
                         std::to_string(scenario.training.global_batch) + " in at most " +
                         std::to_string(kMaxAccumulationSteps) + " whole accumulation steps");
  }
  if (steps != it.micro_steps) {
    throw InputError(file, 0, field(it, "micro_steps"),
                     std::to_string(it.micro_steps) + ", but the scenario gives " + std::to_string(steps) +
                         " accumulation steps at micro-batch " + std::to_string(it.micro_batch));
  }
  Scenario fixed = scenario;
  fixed.training.micro_batch = it.micro_batch;
  fixed.training.gradient_accumulation_steps = steps;  // a global batch is then micro-batch x steps x GPUs
  StrategyResult planned;
  if (it.strategy == "shardscope") {
    // As the harness planned it: the whole scan (a baseline's plan adopted where faster), else at this batch.
    planned = plan_scenario(ValidScenario(scenario), in.plan_calibration, PlanRequest{}).best;
    if (!planned.fits || planned.plan.micro_batch != it.micro_batch)
      planned = plan_scenario(ValidScenario(fixed), in.plan_calibration, PlanRequest{}).best;
  } else {
    // The harness's split-operator plan is ZeRO-3's, cut into slices (planner/search/split_plan.hpp).
    const std::string base = it.strategy == "split" ? "zero-3" : it.strategy;
    if (find_strategy(base) == nullptr) {
      throw InputError(file, 0, field(it, "strategy"), unknown_strategy_message(it.strategy));
    }
    planned = plan_strategy(ValidScenario(fixed), in.plan_calibration, space_by_name(base, fixed.training));
    if (it.strategy == "split" && planned.fits) {
      try {
        planned.plan = split_plan(fixed, planned.plan);
      } catch (const std::invalid_argument& e) {
        throw InputError(file, 0, field(it, "strategy"), std::string(e.what()) + " on " + in.scenario_file);
      }
    }
  }
  if (!planned.fits) {
    throw InputError(file, 0, field(it, "strategy"),
                     it.strategy + " does not fit the memory limit at micro-batch " +
                         std::to_string(it.micro_batch) + " on " + in.scenario_file +
                         ", so no plan of it can have run");
  }
  Plan plan = planned.plan;
  plan.strategy = it.strategy;
  record_plan_configuration(plan, scenario, in.predict_calibration);
  const std::string digest = format_digest(plan_digest(plan));
  if (it.plan_digest.empty()) {
    // The scenario field is a name (or a file name): only the digest shows which plan, of which scenario,
    // ran.
    throw InputError(file, 0, field(it, "plan_digest"),
                     "missing: without the digest of the plan the run executed nothing shows it ran " +
                         it.strategy + " on " + in.scenario_file +
                         " (shardscope-validate run records it in every iteration)");
  }
  if (it.plan_digest != digest) {
    throw InputError(file, 0, field(it, "plan_digest"),
                     "the run executed plan " + it.plan_digest + ", but " + it.strategy + " at micro-batch " +
                         std::to_string(it.micro_batch) + " on " + in.scenario_file + " is plan " + digest +
                         " (another scenario, model or planner version)");
  }
  return plan;
}

namespace {

// The seconds of every compute task of the plan's iteration program (one rank's compute per iteration).
double program_compute_seconds(const CompareInputs& in, const Plan& plan) {
  double seconds = 0;
  for (const auto& [name, tasks] : predicted_tasks(in, plan))
    for (const PredictedTask& t : tasks)
      if (!t.comm) seconds += t.seconds;
  return seconds;
}

// Refuses a measured run that cannot be compared with the scenario: another rank count, an emulated run that
// is not one rank of it, no iterations, or a scaled compute.
void check_comparable(const CompareInputs& in, bool emulated) {
  const Measurements& m = in.measured;
  if (emulated && (m.machine.ranks != 1 || m.machine.emulated_rank >= in.scenario.cluster.gpus())) {
    throw InputError(m.file, 0, m.machine.ranks != 1 ? "machine.ranks" : "machine.emulated_rank",
                     "an emulated run is one process running one rank of " + in.scenario_file + "'s " +
                         std::to_string(in.scenario.cluster.gpus()) + " GPUs; this one has " +
                         std::to_string(m.machine.ranks) + " ranks and emulated rank " +
                         std::to_string(m.machine.emulated_rank));
  }
  if (!emulated && m.machine.ranks != in.scenario.cluster.gpus()) {
    throw InputError(m.file, 0, "machine.ranks",
                     std::to_string(m.machine.ranks) + " ranks measured, but " + in.scenario_file + " has " +
                         std::to_string(in.scenario.cluster.gpus()) + " GPUs");
  }
  if (m.iterations.empty()) {
    throw InputError(m.file, 0, "iterations",
                     "no measured iterations to compare (written by `shardscope-validate run`)");
  }
  // A scaled run multiplied every product's rows and element-wise bytes; the predictions here are of the
  // scenario as written, so comparing them would be off by that factor in every compute task.
  if (m.machine.compute_scale != 1.0) {
    throw InputError(m.file, 0, "machine.compute_scale",
                     "measured with --compute-scale " + units::format_general(m.machine.compute_scale) +
                         ", but compare predicts the scenario's own compute; run shardscope-validate without "
                         "--compute-scale to compare");
  }
}

// The comparison's sections as they fill, and the measured tasks no predicted task matched.
struct Sections {
  ComparisonSection iteration;
  ComparisonSection peak{"peak_memory", "B", {}, {}, {}};
  ComparisonSection operators{"operators", "s", {}, {}, {}};
  ComparisonSection collectives{"collectives", "s", {}, {}, {}};
  ComparisonSection collectives_after{"collectives_after", "s", {}, {}, {}};
  std::size_t unmatched = 0;
};

// Notes on what the model cannot see in one measured iteration: MPI collectives priced as NCCL's, a
// straggler.
void note_unmodelled(const CompareInputs& in, const MeasuredIteration& it, const Plan& plan, Comparison& c) {
  // MPI's collectives are what the calibration's ring step model was fitted to; NCCL's model prices GPU
  // channels and protocols that a CPU run never had.
  if (in.measured.machine.backend == "cpu-mpi" &&
      plan_collectives(in.scenario.execution, plan) == CollectiveModel::nccl) {
    c.notes.push_back(it.strategy +
                      ": priced with NCCL's collective model, but the cpu-mpi backend ran MPI's "
                      "collectives, which the fitted ring model describes; set execution.collectives: ring");
  }
  // A rank whose compute runs slower holds every other rank at each collective after compute: a straggler
  // the model, which prices identical ranks, does not see.
  if (const std::string slow = straggler_note(it.compute_seconds_per_rank); !slow.empty())
    c.notes.push_back(it.strategy + ": " + slow);
}

// One measured iteration's time (emulated: its rank's compute) and peak memory against the planner's and,
// when a simulator is given, the simulator's.
void compare_totals(const CompareInputs& in, const MeasuredIteration& it, const Plan& plan, bool emulated,
                    const Simulate& simulate, Comparison& c, Sections& s) {
  ComparedRow time_row{it.strategy, "", it.iteration_seconds, std::nullopt, std::nullopt, 1};
  if (emulated) {
    time_row.measured = it.compute_seconds_per_rank.empty() ? 0.0 : it.compute_seconds_per_rank.front();
    time_row.iteration_samples.clear();
  }
  time_row.samples = static_cast<double>(it.micro_batch) * it.micro_steps * in.measured.machine.ranks;
  time_row.iteration_samples = iteration_samples(it);
  time_row.same_plan_as = it.same_plan_as;
  ComparedRow peak_row{it.strategy, "", it.peak_bytes, std::nullopt, std::nullopt, 1};
  try {
    const PlanPrediction p = evaluate_plan(ValidScenario(in.scenario), in.predict_calibration, plan);
    if (!emulated) time_row.planner = p.iteration_seconds;
    peak_row.planner = p.peak_memory_bytes;
  } catch (const PlanDoesNotFit& e) {
    peak_row.planner = e.peak_bytes();
    c.notes.push_back(it.strategy +
                      ": over the memory limit under the prediction calibration; no planner time");
  }
  if (const std::optional<SimulatedIteration> sim = simulate && !emulated ? simulate(plan) : std::nullopt) {
    c.simulator_available = true;
    time_row.simulator = sim->iteration_seconds;
    peak_row.simulator = sim->peak_memory_bytes;
  }
  if (emulated) time_row.planner = program_compute_seconds(in, plan);
  s.iteration.rows.push_back(time_row);
  s.peak.rows.push_back(peak_row);
}

// One measured iteration's tasks against the program's tasks of the same name: compute by operator,
// collectives by size band and by what they follow.
void compare_tasks(const CompareInputs& in, const MeasuredIteration& it, const Plan& plan, bool emulated,
                   Sections& s) {
  const std::map<std::string, std::vector<PredictedTask>> predicted = predicted_tasks(in, plan);
  std::map<std::string, std::size_t> seen;  // the k-th measured task of a name is the program's k-th
  std::map<std::string, std::size_t> op_index;
  std::map<int, std::size_t> band_index;
  std::map<std::string, std::size_t> after_index;
  for (const MeasuredTask& t : it.tasks) {
    const auto named = predicted.find(t.name);
    if (named == predicted.end()) {
      ++s.unmatched;
      continue;
    }
    // More measured tasks of a name than the program has (a run that repeated one) are priced as its last.
    const std::vector<PredictedTask>& tasks_of_name = named->second;
    const PredictedTask& p = tasks_of_name[std::min(seen[t.name]++, tasks_of_name.size() - 1)];
    if (p.one_rank || (p.comm && emulated)) continue;
    if (p.comm) {
      const int band = size_band(p.total_bytes);
      for (ComparedRow* r :
           {&row_for(s.collectives.rows, band_index, band, it.strategy, size_band_name(band)),
            &row_for(s.collectives_after.rows, after_index, p.collective, it.strategy, p.collective)}) {
        r->measured += t.seconds;
        *r->planner += p.seconds;
        ++r->count;
      }
    } else {
      const std::string op = t.operator_name.empty() ? operator_of(t.name) : t.operator_name;
      ComparedRow& r = row_for(s.operators.rows, op_index, op, it.strategy, op);
      r.measured += t.seconds;
      *r.planner += p.seconds;
      ++r.count;
    }
  }
}

// One measured iteration: its plan, its notes, its totals and its tasks.
void compare_iteration(const CompareInputs& in, const MeasuredIteration& it, bool emulated,
                       const Simulate& simulate, Comparison& c, Sections& s) {
  const Plan plan = measured_plan(in, it);
  note_unmodelled(in, it, plan, c);
  compare_totals(in, it, plan, emulated, simulate, c, s);
  if (it.tasks.empty()) return;
  if (in.scenario.planner.cost_model != CostModelKind::topology) {
    c.notes.push_back(it.strategy + ": tasks not compared (the paper cost model has no iteration program)");
    return;
  }
  compare_tasks(in, it, plan, emulated, s);
}

}  // namespace

Comparison build_comparison(const CompareInputs& in, const Simulate& simulate) {
  const Measurements& m = in.measured;
  // One GPU ran one rank of the plan, its collectives as device copies: compute and memory compare, the
  // iteration does not (the "compute" section replaces it).
  const bool emulated = m.machine.backend == "cuda-emulated";
  check_comparable(in, emulated);
  Comparison c;
  c.scenario = in.scenario.name;
  c.measured_file = m.file;
  c.calibration = in.calibration_label;
  if (const auto& e = in.predict_calibration.prediction_error; e && e->pairs > 0) c.pair_sd = e->pair_sd;
  Sections s;
  s.iteration = ComparisonSection{emulated ? "compute" : "iteration", "s", {}, {}, {}};
  if (emulated) {
    c.notes.push_back(
        "emulated rank " + std::to_string(m.machine.emulated_rank) + " on one GPU (" + m.machine.device_name +
        "): its collectives ran as device copies, so the iteration is not compared; the compute "
        "section compares the rank's compute tasks per iteration, the operators section each "
        "operator's");
  }
  std::map<std::string, std::size_t> strategy_at;  // each strategy once: two rows of one would blur both
  for (const MeasuredIteration& it : m.iterations) {
    if (const auto [at, fresh] = strategy_at.emplace(it.strategy, it.index); !fresh) {
      throw InputError(m.file, 0, "iterations[" + std::to_string(it.index) + "].strategy",
                       it.strategy + " is measured twice (also iterations[" + std::to_string(at->second) +
                           "]): one row per strategy");
    }
    compare_iteration(in, it, emulated, simulate, c, s);
  }
  if (s.unmatched > 0) {
    c.notes.push_back(
        std::to_string(s.unmatched) +
        " measured task(s) have no task of that name in the predicted iteration program and are "
        "not compared");
  }
  c.sections = {s.iteration, s.peak, s.operators};
  if (!emulated) {
    c.sections.push_back(s.collectives);
    c.sections.push_back(s.collectives_after);
  }
  finish_comparison(c);
  return c;
}

}  // namespace shardscope::fit
