// `shardscope plan SCENARIO [--json] [--out plan.json] [--no-baselines] [--batch-policy own|equal]
// [--micro-batch N] [--refine K] [--progress] [--tokens N [--price-per-gpu-hour P]]`: the optimal plan,
// bounds, baselines, time to train and cost; progress on stderr, Ctrl-C cancels.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "apps/shardscope/command_defaults.hpp"
#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/plan_budget.hpp"
#include "apps/shardscope/plan_memory.hpp"
#include "apps/shardscope/plan_pipeline.hpp"
#include "apps/shardscope/plan_progress.hpp"
#include "apps/shardscope/plan_target.hpp"
#include "apps/shardscope/scenario_flags.hpp"
#include "apps/shardscope/simulation.hpp"
#include "planner/core/calibration.hpp"
#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/units.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/mesh_json.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/mesh_search.hpp"
#include "planner/report/plan_export.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"
#include "present/mesh_table.hpp"
#include "present/plan_alternatives.hpp"
#include "present/plan_text.hpp"

namespace shardscope::cli {
namespace {

// Threads for the planner: all of them, except under an address-space limit (`ulimit -v`), where one thread
// keeps the peak the same from run to run (helper threads' buffers and stacks depend on timing).
int planner_threads() {
  rlimit limit{};
  return getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? 1 : 0;
}

// Runs `search` (a plan or a mesh search, given the request with the progress printer as its observer) with
// progress on stderr (progress_style) while Ctrl-C cancels; nullopt when it was cancelled.
template <typename Result>
std::optional<Result> with_progress(PlanRequest request, bool force_progress, bool quiet,
                                    const std::function<Result(const PlanRequest&)>& search) {
  const InterruptFlag interrupt;
  ProgressPrinter printer(std::cerr, progress_style(force_progress, quiet), interrupt);
  try {
    request.search = {&printer, planner_threads()};
    Result result = search(request);
    printer.close(true);
    return result;
  } catch (const PlanCancelled&) {
    return std::nullopt;  // the printer's destructor clears its line
  }
}

std::optional<PlanReport> plan_with_progress(const ValidScenario& scenario, const Calibration& calibration,
                                             const PlanRequest& request, bool force_progress, bool quiet) {
  return with_progress<PlanReport>(request, force_progress, quiet, [&](const PlanRequest& r) {
    return plan_scenario(scenario, calibration, r);
  });
}

// Under parallelism: search, every mesh planned with progress; nullopt when it was cancelled.
std::optional<MeshSearch> meshes_with_progress(const Scenario& whole, const Calibration& calibration,
                                               const PlanRequest& request, bool force_progress, bool quiet) {
  try {
    return with_progress<MeshSearch>(request, force_progress, quiet, [&](const PlanRequest& r) {
      return search_meshes(whole, calibration, r);
    });
  } catch (const MeshError& e) {
    throw InputError(whole.source_file, 0, e.field(), e.what());
  }
}

// The scenario planned and its report: the scenario as loaded, or under parallelism.tensor: search the
// fastest mesh's, with every mesh's in `meshes`.
struct Planned {
  ValidScenario scenario;
  PlanReport report;
  std::optional<MeshSearch> meshes;
};

std::optional<Planned> plan_or_search_meshes(Scenario loaded, const PlanRequest& request, bool progress,
                                             bool quiet) {
  if (!loaded.parallelism.search() || loaded.mesh.sliced()) {
    const ValidScenario scenario(std::move(loaded));
    std::optional<PlanReport> report =
        plan_with_progress(scenario, scenario_calibration(scenario), request, progress, quiet);
    if (!report) return std::nullopt;
    return Planned{scenario, std::move(*report), std::nullopt};
  }
  const ValidScenario whole{Scenario(loaded)};  // the scenario's own errors first, as usual
  std::optional<MeshSearch> search =
      meshes_with_progress(whole, scenario_calibration(whole), request, progress, quiet);
  if (!search) return std::nullopt;
  const MeshOption& chosen = search->options[search->best];
  return Planned{chosen.scenario, chosen.report, std::move(search)};
}

struct Options {
  ScenarioFlags scenario;
  bool json = false;
  std::string out;
  bool no_baselines = false;
  bool progress = false;
  bool quiet = false;
  std::string batch_policy;      // empty: the scenario's training.batch_policy
  std::string collectives;       // empty: the scenario's execution.collectives
  std::int64_t micro_batch = 0;  // 0: the scenario's
  int refine = 0;                // candidates to simulate (0: off)
  double refine_timeout_seconds = kDefaultRefineTimeoutSeconds;
  BudgetFlags budget;
  std::string target;          // --target-tokens-per-second (a count: 1M, 2.5e6); empty: off
  std::string export_format;   // --export: --out gets the plan as this framework's configuration
  bool memory_sweep = false;   // --memory-sweep
  int top = 0;                 // --top K: the K fastest other plans (0: off)
  std::string pipeline_trace;  // --pipeline-trace FILE: the chosen pipeline's run as Trace Event JSON
};

// The command line's overrides of the scenario, checked as the scenario's own values are (blamed on the
// flag).
void apply_plan_flags(const Options& o, Scenario& scenario) {
  if (!o.batch_policy.empty())
    scenario.training.batch_policy = parse_name<BatchPolicy>(o.batch_policy).value();
  if (!o.collectives.empty())
    scenario.execution.collectives = parse_name<CollectivesChoice>(o.collectives).value();
  if (o.micro_batch > 0) {
    scenario.training.micro_batch = o.micro_batch;
    // With a global batch the steps follow from the micro-batch (when it divides; otherwise the check below
    // names the global batch).
    const std::int64_t per_step = o.micro_batch * scenario.cluster.gpus();
    const std::int64_t global = scenario.training.global_batch;
    if (global > 0 && global % per_step == 0 && global / per_step <= kMaxAccumulationSteps) {
      scenario.training.gradient_accumulation_steps = static_cast<int>(global / per_step);
    }
    const std::vector<ScenarioIssue> issues = scenario_issues(scenario);
    if (!issues.empty()) {
      throw UsageError("--micro-batch", std::to_string(o.micro_batch) + " conflicts with the scenario: " +
                                            issues.front().field + ": " + issues.front().message);
    }
  }
}

// --top: the fastest other plans with their figures and what sets each apart from the plan.
nlohmann::ordered_json alternatives_json(const PlanReport& report, std::size_t top) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Plan* p : present::alternatives(report, top)) {
    out.push_back({{"strategy", p->strategy},
                   {"batch_size", p->micro_batch},
                   {"gradient_accumulation_steps", p->gradient_accumulation_steps},
                   {"iteration_seconds", p->predicted.iteration_seconds},
                   {"samples_per_second", p->predicted.samples_per_second},
                   {"peak_memory_bytes", p->predicted.peak_memory_bytes},
                   {"differs", present::plan_difference(*p, report.best.plan)}});
  }
  return out;
}

// --export: the plan as the framework's configuration, in --out; what it cannot express on stderr.
void write_export(const Plan& plan, const Scenario& scenario, const std::string& format,
                  const OutputFile& file) {
  if (scenario.mesh.sliced() && format != "torchtitan") {
    throw UsageError("--export", "the plan runs on a model-parallel mesh (" + mesh_text(scenario) +
                                     "); the " + format +
                                     " export writes data-parallel sharding only: --export torchtitan writes "
                                     "the mesh's degrees");
  }
  const PlanExport exported = export_plan(scenario, plan, parse_name<ExportFormat>(format).value());
  for (const std::string& line : exported.unexpressed)
    std::cerr << "note: the " << format << " export cannot express " << line << "\n";
  file.write(exported.text);
}

void add_plan_options(CLI::App& cmd, Options& o) {
  add_scenario_flags(cmd, o.scenario);
  cmd.add_flag("--json", o.json, "Print the report as JSON");
  cmd.add_option(
         "--out", o.out,
         "Also write the plan report (JSON) to this file; with --export, the framework's configuration")
      ->check(non_empty("a file path"));
  cmd.add_option("--pipeline-trace", o.pipeline_trace,
                 "Under pipeline stages (parallelism.pipeline, --pp): also write the fastest pipeline's run, "
                 "each stage's forwards, backwards, tail and sends, as a Chrome/Perfetto trace to this file")
      ->check(non_empty("a file path"));
  cmd.add_flag("--no-baselines", o.no_baselines, "Skip the baseline strategies");
  cmd.add_option(
         "--batch-policy", o.batch_policy,
         "Compare baselines at the plan's micro-batch and accumulation (equal) or each at its own best "
         "(own); default: the scenario's training.batch_policy, else " +
             std::string(to_string(TrainingConfig{}.batch_policy)))
      ->check(CLI::IsMember({"own", "equal"}));
  cmd.add_option("--collectives", o.collectives,
                 "Price every strategy's collectives, the plan's and every baseline's alike, as rings or as "
                 "NCCL runs them (auto: as NCCL runs them; default: the scenario's execution.collectives, "
                 "else " +
                     std::string(to_string(ExecutionOptions{}.collectives)) + ")")
      ->check(CLI::IsMember({"auto", "ring", "nccl"}));
  cmd.add_option("--micro-batch", o.micro_batch,
                 "Fix the micro-batch per GPU (the scenario's training.micro_batch) for the plan and the "
                 "baselines")
      ->check(CLI::Range(1, 1 << 20));
  cmd.add_option(
         "--refine", o.refine,
         "Simulate the K fastest candidate plans (batch sizes, baselines), each in a child process, and "
         "recommend the fastest under simulation (default 0: off; needs the simulator)")
      ->check(CLI::Range(0, 64));
  cmd.add_option("--refine-timeout", o.refine_timeout_seconds,
                 "Seconds each --refine simulation may take before it is killed (default " +
                     std::to_string(static_cast<int>(kDefaultRefineTimeoutSeconds)) + ")")
      ->check(CLI::Range(0.001, 86400.0));
  cmd.add_flag("--progress", o.progress,
               "Print progress lines on stderr even when it is not a terminal (a terminal gets an updating "
               "line anyway)");
  cmd.add_flag("--quiet", o.quiet, "No progress on stderr, not even on a terminal");
  add_budget_flags(cmd, o.budget);
  cmd.add_option(
         "--target-tokens-per-second", o.target,
         "Find the fewest nodes of the scenario's cluster whose plan reaches this many tokens/s (such "
         "as 1M or 2.5e6), print the node counts planned, and report the plan there")
      ->check(non_empty("a rate such as 1M"));
  cmd.add_option(
         "--export", o.export_format,
         "Write the plan to --out as a framework's configuration: fsdp2 (a Python module applying "
         "fully_shard per module group), torchtitan (TOML fields) or deepspeed (JSON); what it cannot "
         "express is listed in the file's header and on stderr")
      ->check(CLI::IsMember(names<ExportFormat>()));
  cmd.add_option("--top", o.top,
                 "Also list the K fastest other plans (other batch sizes, baselines, near-optimal trades of "
                 "memory for time), each with what sets it apart from the plan")
      ->check(CLI::Range(1, 64));
  cmd.add_flag("--memory-sweep", o.memory_sweep,
               "Also give the memory limits at which the search's best plan changes (every micro-batch's "
               "Pareto front up to the device's memory) and what the next breakpoint past the limit buys");
}

// The flags that --refine refuses: it simulates the scenario file as written.
void check_refine(const Options& o, const Simulation* simulation) {
  if (o.refine == 0) return;
  if (simulation == nullptr) {
    throw UsageError(
        "--refine",
        "needs the simulator, and this shardscope was built without SimGrid (use 0, or a build with "
        "SHARDSCOPE_WITH_SIMGRID)");
  }
  if (o.scenario.overridden()) {
    throw UsageError("--refine",
                     "simulates the scenario file as written; it does not combine with --set, --model, "
                     "--cluster, --nodes or a config.json (write a scenario file instead)");
  }
}

// --target-tokens-per-second's rate, checked; and the flags it does not combine with.
double target_rate(const Options& o) {
  double rate = 0;
  try {
    rate = units::parse_count(o.target);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--target-tokens-per-second", e.what());
  }
  if (!(rate > 0))
    throw UsageError("--target-tokens-per-second", "expected a positive rate, got '" + o.target + "'");
  if (o.scenario.nodes > 0)
    throw UsageError("--target-tokens-per-second",
                     "chooses the node count, so it does not combine with --nodes");
  if (o.refine > 0)
    throw UsageError("--target-tokens-per-second",
                     "does not combine with --refine (refine the plan at the count it finds)");
  return rate;
}

// The recommended plan at one node count, without baselines, or under pipeline stages the fastest
// pipeline's; a count at which the scenario is invalid (a global batch the GPUs do not divide, stages that
// cannot be placed) is recorded with the reason.
TargetPoint plan_at_nodes(const Options& o, int nodes, int gpus_per_node) {
  TargetPoint p;
  p.nodes = nodes;
  p.gpus = nodes * gpus_per_node;
  Options at = o;
  at.scenario.nodes = nodes;
  std::optional<ValidScenario> scenario;
  try {
    Scenario loaded = at.scenario.load();
    apply_plan_flags(at, loaded);
    if (loaded.parallelism.pipelined()) {
      fill_pipeline_target_point(p, loaded, planner_threads());
      return p;
    }
    scenario.emplace(std::move(loaded));
  } catch (const InputError& e) {
    p.refusal = e.what();
    return p;
  }
  PlanRequest request;
  request.with_baselines = false;
  const std::optional<PlanReport> report =
      plan_with_progress(*scenario, scenario_calibration(*scenario), request, o.progress, o.quiet);
  if (!report) throw Interrupted("planning cancelled, no plan written");
  fill_target_point(p, *report);
  return p;
}

void run_plan_at(const Options& o, const Simulation* simulation, std::ostream& out,
                 const std::optional<TargetSearch>& target);

// --out and --pipeline-trace: neither an input nor each other, the trace only of pipeline stages.
void check_output_paths(const Options& o, const Scenario& loaded) {
  refuse_input_as_output("--out", o.out, {o.scenario.scenario_file()});
  refuse_input_as_output("--pipeline-trace", o.pipeline_trace, {o.scenario.scenario_file()});
  refuse_shared_outputs({{"--out", o.out}, {"--pipeline-trace", o.pipeline_trace}});
  if (!o.pipeline_trace.empty() && !loaded.parallelism.pipelined())
    throw UsageError("--pipeline-trace",
                     "writes the run of pipeline stages; the scenario has none (parallelism.pipeline, --pp)");
}

// The options a pipeline search does not take yet, each refused by name.
void refuse_for_pipelines(const Options& o) {
  const auto refuse = [](const std::string& option, const std::string& what) {
    throw UsageError(option, what + " of a pipelined scenario (parallelism.pipeline, --pp) is not built yet");
  };
  if (o.refine > 0) refuse("--refine", "simulating the candidates");
  if (o.memory_sweep) refuse("--memory-sweep", "the memory sweep");
  if (o.top > 0) refuse("--top", "listing the next plans");
}

// --target-tokens-per-second: search the node count, then report the plan at the fewest that reach it.
void run_plan(const Options& o, const Simulation* simulation, std::ostream& out) {
  if (o.target.empty()) return run_plan_at(o, simulation, out, std::nullopt);
  const double rate = target_rate(o);
  o.budget.budget();  // its usage errors before any planning
  const Scenario first = o.scenario.load();
  const bool pipelined = first.parallelism.pipelined();
  if (!pipelined) ValidScenario{Scenario(first)};  // the scenario's own errors as usual, before the search
  if (!pipelined && (first.mesh.sliced() || first.parallelism.search())) {
    throw UsageError("--target-tokens-per-second",
                     "searches node counts of data-parallel plans; a tensor- or context-parallel mesh "
                     "(parallelism:, --tp, --cp) is not searched over node counts yet");
  }
  const int per_node = first.cluster.gpus_per_node;
  const TargetSearch search = search_node_count(rate, per_node, first.training.global_batch,
                                                [&](int nodes) { return plan_at_nodes(o, nodes, per_node); });
  if (!search.nodes) {
    if (o.json) {
      out << nlohmann::ordered_json{{"target", target_search_json(search)}}.dump(2) << "\n";
    } else {
      write_target_search(out, search, first.cluster.name);
    }
    const TargetPoint* best = search.best();
    throw NothingFits("no node count up to " + std::to_string(search.max_nodes) + " reaches " +
                      units::format_count(rate) + " tokens/s" +
                      (best ? "; the most: " + units::format_count(best->tokens_per_second) + " at " +
                                  std::to_string(best->nodes) + " node(s)"
                            : "; no plan fits at any count planned"));
  }
  Options chosen = o;
  chosen.scenario.nodes = *search.nodes;
  run_plan_at(chosen, simulation, out, search);
}

void run_plan_at(const Options& o, const Simulation* simulation, std::ostream& out,
                 const std::optional<TargetSearch>& target) {
  check_refine(o, simulation);
  const std::optional<TrainingBudget> budget = o.budget.budget();
  Scenario loaded = o.scenario.load();
  const std::int64_t file_micro_batch = loaded.training.micro_batch;
  apply_plan_flags(o, loaded);
  if (!o.export_format.empty() && o.out.empty())
    throw UsageError("--export", "writes to --out FILE; give --out");
  // Check the output path before planning, so a bad path fails at once (exit 2).
  check_output_paths(o, loaded);
  const OutputFile plan_file = o.out.empty() ? OutputFile() : OutputFile("--out", o.out);
  if (o.refine > 0 && file_micro_batch > 0 && file_micro_batch != loaded.training.micro_batch) {
    throw UsageError("--micro-batch",
                     "--refine simulates the scenario file as written, whose "
                     "training.micro_batch is " +
                         std::to_string(file_micro_batch) + ", not " +
                         std::to_string(loaded.training.micro_batch));
  }
  if (loaded.parallelism.pipelined()) {
    refuse_for_pipelines(o);
    const OutputFile trace_file =
        o.pipeline_trace.empty() ? OutputFile() : OutputFile("--pipeline-trace", o.pipeline_trace);
    return run_pipeline_plan(loaded, o.json, {&plan_file, &trace_file}, planner_threads(),
                             {o.budget.budget(), target, o.export_format}, out);
  }
  if (o.refine > 0 && loaded.parallelism.search() && !loaded.mesh.sliced())
    throw UsageError("--refine",
                     "simulates one scenario's candidates; give a tensor-parallel degree (--tp N)");
  PlanRequest request;
  request.with_baselines = !o.no_baselines;
  request.candidate_plans = static_cast<std::size_t>(std::max(o.refine, o.top > 0 ? o.top + 1 : 0));
  std::optional<Planned> planned = plan_or_search_meshes(std::move(loaded), request, o.progress, o.quiet);
  if (!planned) throw Interrupted("planning cancelled, no plan written");  // exit 130, no plan file
  const ValidScenario& scenario = planned->scenario;
  const Calibration calibration = scenario_calibration(scenario);
  PlanReport& report = planned->report;
  auto json = report_to_json(report, scenario);
  if (planned->meshes) json["mesh_search"] = mesh_search_json(*planned->meshes);
  std::optional<RefineReport> refined;
  if (o.refine > 0 && report.best.fits) {
    refined = simulation->refine(report, scenario, calibration, o.scenario.scenario_file(),
                                 o.refine_timeout_seconds);
    json = report_to_json(report, scenario);
    json["refine"] = refined->json;
    if (planned->meshes) json["mesh_search"] = mesh_search_json(*planned->meshes);
  }
  if (budget) json["time_to_train"] = time_to_train_json(report, scenario, *budget);
  if (target) json["target"] = target_search_json(*target);
  if (o.top > 0) json["alternatives"] = alternatives_json(report, static_cast<std::size_t>(o.top));
  std::optional<MemorySweep> sweep;
  if (o.memory_sweep) {
    sweep = memory_sweep(scenario, calibration);
    json["memory_sweep"] = memory_sweep_json(*sweep);
  }
  if (o.export_format.empty()) {
    plan_file.write(json.dump(2) + "\n");
  } else if (report.best.fits) {
    write_export(report.best.plan, scenario, o.export_format, plan_file);
  }
  if (o.json) {
    out << json.dump(2) << "\n";
  } else {
    if (target) {
      write_target_search(out, *target, scenario.cluster.name);
      out << "\n";
    }
    if (planned->meshes) present::write_mesh_table(out, *planned->meshes);
    present::write_plan_text(scenario, report, out, o.scenario.gpu_label(scenario));
    if (refined) out << refined->text;
    if (budget && report.best.fits) write_time_to_train(out, report, scenario, *budget);
    if (o.top > 0) present::write_alternatives(out, report, static_cast<std::size_t>(o.top));
    if (sweep) write_memory_sweep(out, *sweep);
  }
  if (!report.best.fits) {
    throw NothingFits(scenario.source_file +
                      ": no plan fits the memory limit: " + present::no_fit_bytes(scenario, report.best));
  }
}

}  // namespace

Registered register_plan(CLI::App& app, const Simulation* simulation) {
  auto* cmd = app.add_subcommand("plan", "Find the optimal per-operator sharding plan and compare baselines");
  auto opts = std::make_shared<Options>();
  add_plan_options(*cmd, *opts);
  return {cmd, [opts, simulation](std::ostream& out) { run_plan(*opts, simulation, out); }};
}

}  // namespace shardscope::cli
