// `shardscope plan SCENARIO [--json] [--out plan.json] [--no-baselines] [--batch-policy own|equal]
// [--micro-batch N] [--refine K] [--progress] [--tokens N [--price-per-gpu-hour P]]`: the optimal plan,
// bounds, baselines, time to train and cost; progress on stderr, Ctrl-C cancels.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
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
#include "apps/shardscope/plan_progress.hpp"
#include "apps/shardscope/scenario_flags.hpp"
#include "apps/shardscope/simulation.hpp"
#include "planner/core/calibration.hpp"
#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"
#include "present/plan_text.hpp"

namespace shardscope::cli {
namespace {

// Threads for the planner: all of them, except under an address-space limit (`ulimit -v`), where one thread
// keeps the peak the same from run to run (helper threads' buffers and stacks depend on timing).
int planner_threads() {
  rlimit limit{};
  return getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? 1 : 0;
}

// Plans with progress on stderr (progress_style) while Ctrl-C cancels; nullopt when it was cancelled.
std::optional<PlanReport> plan_with_progress(const ValidScenario& scenario, const Calibration& calibration,
                                             PlanRequest request, bool force_progress, bool quiet) {
  const InterruptFlag interrupt;
  ProgressPrinter printer(std::cerr, progress_style(force_progress, quiet), interrupt);
  try {
    request.search = {&printer, planner_threads()};
    PlanReport report = plan_scenario(scenario, calibration, request);
    printer.close(true);
    return report;
  } catch (const PlanCancelled&) {
    return std::nullopt;  // the printer's destructor clears its line
  }
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

void add_plan_options(CLI::App& cmd, Options& o) {
  add_scenario_flags(cmd, o.scenario);
  cmd.add_flag("--json", o.json, "Print the report as JSON");
  cmd.add_option("--out", o.out, "Also write the plan report (JSON) to this file")
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

void run_plan(const Options& o, const Simulation* simulation, std::ostream& out) {
  check_refine(o, simulation);
  const std::optional<TrainingBudget> budget = o.budget.budget();
  Scenario loaded = o.scenario.load();
  const std::int64_t file_micro_batch = loaded.training.micro_batch;
  apply_plan_flags(o, loaded);
  const ValidScenario scenario(std::move(loaded));
  const Calibration calibration = scenario_calibration(scenario);
  // Check the output path before planning, so a bad path fails at once (exit 2).
  refuse_input_as_output("--out", o.out, {o.scenario.scenario_file()});
  const OutputFile plan_file = o.out.empty() ? OutputFile() : OutputFile("--out", o.out);
  if (o.refine > 0 && file_micro_batch > 0 && file_micro_batch != scenario.training.micro_batch) {
    throw UsageError("--micro-batch",
                     "--refine simulates the scenario file as written, whose "
                     "training.micro_batch is " +
                         std::to_string(file_micro_batch) + ", not " +
                         std::to_string(scenario.training.micro_batch));
  }
  PlanRequest request;
  request.with_baselines = !o.no_baselines;
  request.candidate_plans = static_cast<std::size_t>(o.refine);
  std::optional<PlanReport> planned = plan_with_progress(scenario, calibration, request, o.progress, o.quiet);
  if (!planned) throw Interrupted("planning cancelled, no plan written");  // exit 130, no plan file
  PlanReport& report = *planned;
  auto json = report_to_json(report, scenario);
  std::optional<RefineReport> refined;
  if (o.refine > 0 && report.best.fits) {
    refined = simulation->refine(report, scenario, calibration, o.scenario.scenario_file(),
                                 o.refine_timeout_seconds);
    json = report_to_json(report, scenario);
    json["refine"] = refined->json;
  }
  if (budget) json["time_to_train"] = time_to_train_json(report, scenario, *budget);
  plan_file.write(json.dump(2) + "\n");
  if (o.json) {
    out << json.dump(2) << "\n";
  } else {
    present::write_plan_text(scenario, report, out, o.scenario.gpu_label(scenario));
    if (refined) out << refined->text;
    if (budget && report.best.fits) write_time_to_train(out, report, scenario, *budget);
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
