// `shardscope simulate SCENARIO [--plan plan.json | --strategy NAME] [--json] [--trace t.json] [--links
// l.csv] [--result-json r.json] [--compare]`.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "apps/shardscope/cli_names.hpp"
#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/scenario_flags.hpp"
#include "apps/shardscope/simgrid_simulation.hpp"
#include "apps/shardscope/simulate_pipeline.hpp"
#include "apps/shardscope/simulate_progress.hpp"
#include "apps/shardscope/simulator_exec.hpp"
#include "apps/shardscope/standard_streams.hpp"
#include "exchange/result_export.hpp"
#include "exchange/result_json.hpp"
#include "exchange/trace_ranks.hpp"
#include "planner/core/error.hpp"
#include "planner/core/printable.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/units.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/mesh_search.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/plan_evaluation.hpp"
#include "planner/search/planner.hpp"
#include "present/plan_text.hpp"
#include "present/text_table.hpp"
#include "sim/iteration_sim.hpp"
#include "sim/resources.hpp"

namespace shardscope::cli {
namespace {

using Json = nlohmann::ordered_json;

struct Options {
  ScenarioFlags scenario;
  std::string plan, strategy, trace, links, result_json, calibration;
  bool json = false, serial = false, overlap = false, compare = false, every_step = false, quiet = false,
       progress = false;
  int prefetch = -1;  // -1: the scenario's execution.prefetch_depth
  std::string trace_ranks = sim::IterationOptions{}.trace_ranks;
  int coarse_above = sim::IterationOptions{}.coarse_above;
  std::string bucket;
  std::string collectives;  // empty: the scenario's execution.collectives
};

// The output files, checked before anything long runs, so a bad path fails at once (exit 2); each is
// written whole (temporary file + rename) once the simulation is done.
struct OutputFiles {
  OutputFile trace, links, result_json;
};

OutputFile output_file(const char* option, const std::string& path) {
  return path.empty() ? OutputFile() : OutputFile(option, path);
}

OutputFiles check_outputs(const Options& o) {
  const std::vector<std::string> inputs = {o.scenario.scenario_file(), o.plan, o.calibration};
  for (const auto& [option, path] : {std::pair{"--trace", o.trace}, std::pair{"--links", o.links},
                                     std::pair{"--result-json", o.result_json}})
    refuse_input_as_output(option, path, inputs);
  refuse_shared_outputs({{"--trace", o.trace}, {"--links", o.links}, {"--result-json", o.result_json}});
  return {output_file("--trace", o.trace), output_file("--links", o.links),
          output_file("--result-json", o.result_json)};
}

// The flags change the scenario's execution options, so the planner's prediction and the simulation see
// the same ones.
void apply_execution_flags(const Options& o, Scenario& scenario) {
  if (o.serial) scenario.execution.overlap = false;
  if (o.overlap) scenario.execution.overlap = true;
  if (o.prefetch >= 0) scenario.execution.prefetch_depth = o.prefetch;
  if (!o.collectives.empty())
    scenario.execution.collectives = parse_name<CollectivesChoice>(o.collectives).value();
  if (!o.bucket.empty()) {
    try {
      scenario.execution.bucket_bytes = static_cast<double>(units::parse_bytes(o.bucket));
    } catch (const std::invalid_argument& e) {
      throw UsageError("--bucket", e.what());
    }
  }
}

sim::IterationOptions iteration_options(const Options& o, const Scenario& scenario) {
  sim::IterationOptions options;
  options.prefetch_depth = scenario.execution.prefetch_depth;
  options.overlap = scenario.execution.overlap;
  options.bucket_bytes = scenario.execution.bucket_bytes;
  options.trace_ranks = o.trace_ranks;
  try {  // checked against this cluster before any work, so that the flag is blamed
    sim::traced_ranks(o.trace_ranks, scenario.cluster.gpus(), scenario.cluster.gpus_per_node);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--trace-ranks", e.what());
  }
  options.coarse_above = o.coarse_above;
  options.steady_state = !o.every_step;
  return options;
}

// The plan file, the plan `plan` recommends, or the best plan of the chosen strategy; NothingFits when it
// does not fit the memory limit.
Plan resolve_plan(const Options& o, const ValidScenario& scenario, const Calibration& calibration) {
  if (!o.plan.empty()) {
    Plan plan = load_plan_file(o.plan, scenario.model);
    for (const std::string& warning : check_plan_configuration(plan, scenario, calibration))
      std::cerr << escape_unprintable(warning) << "\n";  // it quotes the plan file's path
    return plan;
  }
  SearchSpace space;
  try {
    space = o.strategy.empty() ? full_space(scenario.training) : space_by_name(o.strategy, scenario.training);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--strategy", e.what());
  }
  if (const std::string note = strategy_alias_note(o.strategy); !note.empty())
    std::cerr << "note: --strategy " << escape_unprintable(note) << "\n";
  // Without --strategy: the plan `shardscope plan` recommends, which is a baseline's when one is faster.
  const StrategyResult planned = o.strategy.empty() ? plan_scenario(scenario, calibration).best
                                                    : plan_strategy(scenario, calibration, space);
  if (!planned.fits) {
    throw NothingFits(scenario.source_file + ": strategy " + space.name +
                      " does not fit the memory limit: " + present::no_fit_bytes(scenario, planned));
  }
  return planned.plan;
}

// The text of one requested output ("" when it is not asked for: nothing is formatted).
std::string output_text(const OutputFile& file, const std::function<void(std::ostream&)>& write) {
  if (!file.requested()) return "";
  std::ostringstream text;
  write(text);
  return text.str();
}

// The requested outputs, all or none (a full disk leaves none of them, and earlier files as they were).
// `quiet`: the trace's size is not stated.
void write_outputs(const OutputFiles& files, const sim::IterationResult& result, bool quiet) {
  const std::string trace = output_text(
      files.trace, [&](std::ostream& out) { out << sim::trace_event_json(result).dump() << "\n"; });
  if (files.trace.requested() && !quiet) {  // its size before it is written: at scale a trace can fill a disk
    std::set<int> ranks;
    for (const sim::TraceEvent& e : result.trace) ranks.insert(e.rank);
    std::cerr << "trace: " << result.trace.size() << " events and " << result.memory.size()
              << " memory samples of " << ranks.size() << " GPU" << (ranks.size() == 1 ? "" : "s") << ", "
              << units::format_bytes(static_cast<double>(trace.size())) << "\n";
  }
  write_together(
      {{&files.trace, trace},
       {&files.links,
        output_text(files.links, [&](std::ostream& out) { sim::write_link_csv(out, result.links); })},
       {&files.result_json,
        output_text(files.result_json, [&](std::ostream& out) { sim::write_result_json(out, result); })}});
}

// printf-style formatting into a string of any length.
template <typename... Args>
std::string format(const char* pattern, Args... args) {
  std::string text(256, '\0');
  int length = std::snprintf(text.data(), text.size(), pattern, args...);
  if (length >= static_cast<int>(text.size())) {
    text.resize(static_cast<std::size_t>(length) + 1);
    length = std::snprintf(text.data(), text.size(), pattern, args...);
  }
  text.resize(static_cast<std::size_t>(std::max(length, 0)));
  return text;
}

// The largest per-GPU numbers over all ranks.
struct Maxima {
  double peak_memory_bytes = 0, allocated_peak_memory_bytes = 0, compute_seconds = 0,
         exposed_comm_seconds = 0;
};

Maxima maxima(const sim::IterationResult& result) {
  Maxima m;
  for (const sim::GpuResult& g : result.gpus) {
    m.peak_memory_bytes = std::max(m.peak_memory_bytes, g.peak_memory_bytes);
    m.allocated_peak_memory_bytes = std::max(m.allocated_peak_memory_bytes, g.allocated_peak_memory_bytes);
    m.compute_seconds = std::max(m.compute_seconds, g.compute_seconds);
    m.exposed_comm_seconds = std::max(m.exposed_comm_seconds, g.exposed_comm_seconds);
  }
  return m;
}

// The planner's figures the simulation is compared with: its prediction (the reserved peak), its peak of
// allocated tensors and the iteration's time without compute (program_exposure).
struct PlannerFigures {
  PlanPrediction predicted;
  double allocated_peak_bytes = 0;
  double exposed_comm_seconds = 0;
};

void print_json(const Scenario& scenario, const Plan& plan, const PlannerFigures& planner,
                const sim::IterationResult& result, std::ostream& out) {
  const PlanPrediction& predicted = planner.predicted;
  Json j;
  j["scenario"] = scenario.name;
  j["strategy"] = plan.strategy;
  j["collectives"] = to_string(plan_collectives(scenario.execution, plan));
  j["iteration_seconds"] = result.iteration_seconds;
  j["samples_per_second"] = result.samples_per_second;
  j["tokens_per_second"] = result.tokens_per_second;
  j["planner"] = {{"iteration_seconds", predicted.iteration_seconds},
                  {"peak_memory_bytes", predicted.peak_memory_bytes},
                  {"allocated_peak_memory_bytes", planner.allocated_peak_bytes},
                  {"exposed_comm_seconds", planner.exposed_comm_seconds}};
  j["activities"] = result.activities;
  if (result.steady_state_micro_steps > 0) j["steady_state_micro_steps"] = result.steady_state_micro_steps;
  j["gpus"] = Json::array();
  for (const sim::GpuResult& g : result.gpus) {
    j["gpus"].push_back({{"rank", g.rank},
                         {"peak_memory_bytes", g.peak_memory_bytes},
                         {"allocated_peak_memory_bytes", g.allocated_peak_memory_bytes},
                         {"compute_seconds", g.compute_seconds},
                         {"exposed_comm_seconds", g.exposed_comm_seconds}});
  }
  out << j.dump(2) << "\n";
}

// The summary; `gpu` names the cluster's GPU (ScenarioFlags::gpu_label).
void print_summary(const Scenario& scenario, const std::string& gpu, const Plan& plan,
                   const sim::IterationOptions& options, const sim::IterationResult& result,
                   std::ostream& out) {
  out << "Simulated " << plan.strategy << " on " << physical_gpus(scenario) << " x " << gpu
      << (scenario.mesh.sliced() ? " as " + mesh_text(scenario).substr(0, mesh_text(scenario).find(" ("))
                                 : "")
      << ", micro-batch " << plan.micro_batch << " x " << plan.gradient_accumulation_steps << " steps, "
      << to_string(plan_collectives(scenario.execution, plan)) << " collectives, "
      << (options.overlap
              ? "compute and communication streams, prefetch " + std::to_string(options.prefetch_depth)
              : std::string("one stream (serial)"))
      << "\n\n";
  out << format("  iteration %s, %.2f samples/s, %.0f tokens/s, %lld SimGrid activities\n",
                units::format_duration(result.iteration_seconds).c_str(), result.samples_per_second,
                result.tokens_per_second, static_cast<long long>(result.activities));
  if (result.steady_state_micro_steps > 0) {
    out << "  steady state: the last " << result.steady_state_micro_steps << " of "
        << plan.gradient_accumulation_steps
        << " micro-steps repeat the one before exactly and are added, not simulated (absent from the "
           "trace)\n";
  }
  const Maxima m = maxima(result);
  out << "  per GPU (max over ranks): compute " << units::format_duration(m.compute_seconds)
      << ", exposed communication " << units::format_duration(m.exposed_comm_seconds) << ", peak memory "
      << units::format_bytes(m.peak_memory_bytes) << " reserved, "
      << units::format_bytes(m.allocated_peak_memory_bytes) << " allocated\n";
}

// The signed relative difference "+1.25 %", or "-" when the reference is 0 (no defined ratio).
std::string percent_difference(double value, double reference) {
  if (!(reference != 0)) return "-";
  return format("%+.2f %%", 100 * (value - reference) / reference);
}

void print_comparison(const PlannerFigures& planner, const sim::IterationResult& result, std::ostream& out) {
  const PlanPrediction& predicted = planner.predicted;
  const Maxima m = maxima(result);
  const double peak_bytes = m.peak_memory_bytes;
  out << "\n";
  present::TextTable t({"", "planner", "simulator", "difference"});
  t.add({"iteration time", units::format_duration(predicted.iteration_seconds),
         units::format_duration(result.iteration_seconds),
         percent_difference(result.iteration_seconds, predicted.iteration_seconds)});
  t.add({"peak memory / GPU", units::format_bytes(predicted.peak_memory_bytes),
         units::format_bytes(peak_bytes), percent_difference(peak_bytes, predicted.peak_memory_bytes)});
  t.add({"allocated peak / GPU", units::format_bytes(planner.allocated_peak_bytes),
         units::format_bytes(m.allocated_peak_memory_bytes),
         percent_difference(m.allocated_peak_memory_bytes, planner.allocated_peak_bytes)});
  t.add({"exposed comm / GPU", units::format_duration(planner.exposed_comm_seconds),
         units::format_duration(m.exposed_comm_seconds),
         percent_difference(m.exposed_comm_seconds, planner.exposed_comm_seconds)});
  t.print(out);
}

// Simulates with progress on stderr (the planner's iteration time is the estimate) while Ctrl-C cancels:
// exit 130 and no output file.
sim::IterationResult simulate_with_progress(const ValidScenario& scenario, const Calibration& calibration,
                                            const Plan& plan, const sim::IterationOptions& options,
                                            const PlanPrediction& predicted, bool force_progress,
                                            bool quiet) {
  const InterruptFlag interrupt;
  SimulationProgressPrinter printer(std::cerr, progress_style(force_progress, quiet), interrupt,
                                    predicted.iteration_seconds);
  try {
    sim::IterationResult result = sim::simulate_iteration(scenario, calibration, plan, options, &printer);
    printer.close(true);
    return result;
  } catch (const sim::SimulationCancelled&) {
    throw Interrupted("simulation cancelled, nothing written");
  }
}

// Which plan, how it runs, and the trace and memory kept (the scenario's ranges, checked here so that a bad
// flag is blamed on the flag, not on the scenario file).
void add_run_options(CLI::App& cmd, Options& o) {
  auto* plan_opt = cmd.add_option("--plan", o.plan, "Plan JSON written by `shardscope plan --out`")
                       ->check(non_empty("a plan file path"));
  cmd.add_option("--strategy", o.strategy, "A strategy from the registry instead: " + strategy_help())
      ->check(strategy_check())
      ->excludes(plan_opt);
  cmd.add_option("--prefetch", o.prefetch,
                 "Prefetch depth (default: the scenario's execution.prefetch_depth)")
      ->check(CLI::Range(0, 64));
  cmd.add_option("--bucket", o.bucket,
                 "Gradient bucket size, e.g. 25MB (default: the scenario's execution.bucket)")
      ->check(byte_size_up_to(std::int64_t{1} << 40, "1TiB"));
  cmd.add_option(
         "--collectives", o.collectives,
         "Collectives as rings or as NCCL runs them, or auto: the plan's own (a plan made under auto: "
         "nccl, whatever its strategy; an older plan file without the field: rings); default: the "
         "scenario's execution.collectives")
      ->check(CLI::IsMember({"auto", "ring", "nccl"}));
  CLI::Option* serial =
      cmd.add_flag("--serial", o.serial, "One stream per GPU: no overlap of communication and compute");
  cmd.add_flag("--overlap", o.overlap,
               "Overlap communication with compute (default: the scenario's execution.overlap)")
      ->excludes(serial);
  cmd.add_option(
         "--trace-ranks", o.trace_ranks,
         "Ranks whose trace and memory timeline are kept: N (the first N), all, nodes:K (every GPU of "
         "K nodes spread over the cluster) or ranks and ranges such as 0,5,8-15 (default " +
             sim::IterationOptions{}.trace_ranks + ")")
      ->check(CLI::Validator(
          [](const std::string& spec) { return sim::trace_ranks_syntax_error(spec).value_or(""); }, "SPEC"));
  cmd.add_option("--coarse-above", o.coarse_above,
                 "Rings with more ranks than this use the coarse flow model, and a mesh's all-to-alls "
                 "among more are timed as priced (default " +
                     std::to_string(sim::IterationOptions{}.coarse_above) + ")")
      ->check(CLI::Range(0, 1 << 30));
  cmd.add_flag("--every-step", o.every_step,
               "Simulate every micro-step (default: above 64, micro-steps that repeat the one before exactly "
               "are added instead)");
}

// What is written and printed.
void add_output_options(CLI::App& cmd, Options& o) {
  cmd.add_option("--trace", o.trace, "Write a Chrome/Perfetto trace (Trace Event JSON)")
      ->check(non_empty("a file path"));
  cmd.add_option("--links", o.links, "Write bytes and utilisation per link direction as CSV")
      ->check(non_empty("a file path"));
  cmd.add_option("--result-json", o.result_json,
                 "Write the full simulated result (per-GPU results, trace, memory, links) as JSON")
      ->check(non_empty("a file path"));
  cmd.add_option("--calibration", o.calibration,
                 "Calibration YAML to use instead of the scenario's planner.calibration (e.g. from "
                 "`shardscope calibrate`)")
      ->check(non_empty("a file path"));
  cmd.add_flag("--compare", o.compare, "Print the planner's prediction next to the simulation");
  cmd.add_flag("--json", o.json, "Print JSON");
  CLI::Option* quiet = cmd.add_flag("--quiet", o.quiet, "No progress on stderr, not even on a terminal");
  cmd.add_flag("--progress", o.progress,
               "Print progress lines on stderr (at most one a second) even when it is not a terminal (a "
               "terminal gets an updating line anyway)")
      ->excludes(quiet);
}

// Under parallelism.tensor: search, the mesh to simulate: the plan file's, else the fastest mesh `plan` finds
// (search_meshes); any other scenario as it is.
Scenario simulated_mesh(const Options& o, Scenario loaded) {
  if (!loaded.parallelism.search() || loaded.mesh.sliced()) return loaded;
  try {
    if (!o.plan.empty()) {
      const Plan planned = load_plan_file(o.plan, loaded.model);
      return scenario_for_plan_mesh(loaded, planned.tensor);
    }
    const ValidScenario whole{Scenario(loaded)};
    const MeshSearch search = search_meshes(whole, scenario_calibration(whole), PlanRequest{});
    return search.options[search.best].scenario.scenario();
  } catch (const MeshError& e) {
    throw InputError(o.plan.empty() ? loaded.source_file : o.plan, 0, e.field(), e.what());
  }
}

// The options a pipelined scenario's simulation does not take yet, each refused by name.
void refuse_for_pipelines(const Options& o) {
  for (const auto& [option, asked] :
       {std::pair{"--plan", !o.plan.empty()}, std::pair{"--strategy", !o.strategy.empty()},
        std::pair{"--links", !o.links.empty()}, std::pair{"--result-json", !o.result_json.empty()}})
    if (asked)
      throw UsageError(option,
                       "is not built yet for a pipelined scenario (parallelism.pipeline, --pp): its "
                       "simulation runs the pipeline `plan` finds and prints it beside the planner's");
}

void run_simulate(const Options& o, std::ostream& out) {
  Scenario loaded = o.scenario.load();
  if (!o.calibration.empty()) loaded.planner.calibration_file = o.calibration;
  apply_execution_flags(o, loaded);
  if (loaded.parallelism.pipelined()) {
    refuse_for_pipelines(o);
    const OutputFiles outputs = check_outputs(o);
    set_abort_explanation(kSimulatorAborted);
    return run_pipeline_simulate(loaded, iteration_options(o, loaded), o.json, outputs.trace, out);
  }
  const ValidScenario scenario(simulated_mesh(o, std::move(loaded)));  // the file and the flags, checked once
  const Calibration calibration = scenario_calibration(scenario);
  const sim::IterationOptions options = iteration_options(o, scenario);
  const OutputFiles outputs = check_outputs(o);
  if (o.plan.empty()) sim::check_iteration_size(scenario, options);  // before planning what cannot run
  const Plan plan = resolve_plan(o, scenario, calibration);
  // Before simulating: a plan outside the scenario's space or over its memory limit is refused.
  const PlanPrediction predicted = evaluate_plan(scenario, calibration, plan);
  set_abort_explanation(kSimulatorAborted);
  const sim::IterationResult result =
      simulate_with_progress(scenario, calibration, plan, options, predicted, o.progress, o.quiet);
  write_outputs(outputs, result, o.quiet);
  const PlanProgramFigures program = plan_program_figures(scenario, calibration, plan);
  const PlannerFigures planner{predicted, program.allocated_peak_bytes, program.exposure.exposed_seconds};
  if (o.json) {
    print_json(scenario, plan, planner, result, out);
  } else {
    print_summary(scenario, o.scenario.gpu_label(scenario), plan, options, result, out);
    if (o.compare) print_comparison(planner, result, out);
  }
}

}  // namespace

Registered register_simulate(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate", kSimulateDescription);
  cmd->footer("Limits: at most " + std::to_string(sim::kMaxSimulatedGpus) + " GPUs and " +
              std::to_string(sim::kMaxSimulatedActivities) +
              " simulated activities (ring steps, coarse flows, compute tasks); actor stacks of " +
              std::to_string(sim::kActorStackBytes >> 10) +
              " KiB must fit the address-space limit (ulimit -v). Beyond: exit 4 with the reason.\n\n" +
              exit_status_help());
  auto o = std::make_shared<Options>();
  add_scenario_flags(*cmd, o->scenario);
  add_run_options(*cmd, *o);
  add_output_options(*cmd, *o);
  return {cmd, [o](std::ostream& out) { run_simulate(*o, out); }};
}

}  // namespace shardscope::cli
