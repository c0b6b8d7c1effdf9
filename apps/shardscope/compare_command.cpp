// `shardscope compare SCENARIO --measured run.json [--calibration c.yaml] [--json out.json] [--markdown
// out.md]`: predicted (planner, and simulator when built: each plan simulated in a child process) vs
// measured per iteration, peak memory, operator and collective size band; Markdown on stdout.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/io/text_file.hpp"
#include "validate/fit/compare_predict.hpp"
#ifdef SHARDSCOPE_HAVE_SIM
#include "sim/runner.hpp"
#include "sim/simulation_error.hpp"
#endif

namespace shardscope::cli {

namespace {

struct Options {
  std::string scenario, measured, calibration, json, markdown;
  double timeout_seconds = 600;
};

#ifdef SHARDSCOPE_HAVE_SIM
fit::Simulate child_simulator(const Options& o, const Scenario& scenario) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw sim::SimulationError("compare cannot find its own program to run: " + error.message());
  auto runner = std::make_shared<sim::ChildProcessRunner>(self.string());
  sim::SimulationJob job;
  job.scenario_file = o.scenario;
  job.calibration_file = o.calibration;
  job.options.prefetch_depth = scenario.execution.prefetch_depth;
  job.options.overlap = scenario.execution.overlap;
  job.options.bucket_bytes = scenario.execution.bucket_bytes;
  job.options.trace_ranks = 0;
  job.timeout_seconds = o.timeout_seconds;
  return [runner, job](const Plan& plan) -> std::optional<fit::SimulatedIteration> {
    sim::SimulationJob j = job;
    j.plan = plan;
    const sim::IterationResult r = runner->run(j);
    fit::SimulatedIteration s;
    s.iteration_seconds = r.iteration_seconds;
    for (const sim::GpuResult& g : r.gpus)
      s.peak_memory_bytes = std::max(s.peak_memory_bytes, g.peak_memory_bytes);
    return s;
  };
}
#endif

}  // namespace

Registered register_compare(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("compare", "Compare predicted (planner, simulator) with measured iterations");
  auto o = std::make_shared<Options>();
  cmd->add_option("scenario", o->scenario, "Scenario YAML file the runs executed")
      ->required()
      ->check(non_empty("a file path"));
  cmd->add_option("--measured", o->measured, "Measurements JSON with iterations (shardscope-validate run)")
      ->required()
      ->check(non_empty("a file path"));
  cmd->add_option("--calibration", o->calibration,
                  "Predict with this calibration (shardscope calibrate) instead of the scenario's")
      ->check(non_empty("a file path"));
  cmd->add_option("--json", o->json, "Also write the comparison as JSON")->check(non_empty("a file path"));
  cmd->add_option("--markdown", o->markdown, "Also write the Markdown report to a file")
      ->check(non_empty("a file path"));
  cmd->add_option("--sim-timeout", o->timeout_seconds, "Seconds each simulation may take (default 600)")
      ->check(CLI::Range(0.001, 86400.0));
  return {
      cmd, [o](std::ostream& out) {
        for (const auto& [option, path] :
             {std::pair{"--json", o->json}, std::pair{"--markdown", o->markdown}})
          refuse_input_as_output(option, path, {o->scenario, o->measured, o->calibration});
        if (!o->json.empty() && !o->markdown.empty())
          refuse_input_as_output("--markdown", o->markdown, {o->json});
        const OutputFile json_file = o->json.empty() ? OutputFile() : OutputFile("--json", o->json);
        const OutputFile md_file = o->markdown.empty() ? OutputFile() : OutputFile("--markdown", o->markdown);
        fit::CompareInputs in;
        in.scenario_file = o->scenario;
        in.scenario = load_scenario_file(o->scenario);
        in.plan_calibration = scenario_calibration(in.scenario);
        in.predict_calibration = o->calibration.empty()
                                     ? in.plan_calibration
                                     : parse_calibration_string(read_text_file(o->calibration, "calibration"),
                                                                o->calibration, in.scenario);
        in.calibration_label = o->calibration.empty() ? "the scenario's" : "`" + o->calibration + "`";
        in.measured = fit::load_measurements_file(o->measured);
        fit::Simulate simulate;
#ifdef SHARDSCOPE_HAVE_SIM
        simulate = child_simulator(*o, in.scenario);
#endif
        const fit::Comparison c = fit::build_comparison(in, simulate);
        const std::string markdown = fit::comparison_markdown(c);
        out << markdown;
        write_together({{&json_file, json_file.requested() ? fit::comparison_json(c).dump(2) + "\n" : ""},
                        {&md_file, markdown}});  // both or neither
      }};
}

}  // namespace shardscope::cli
