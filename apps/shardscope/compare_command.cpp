// `shardscope compare SCENARIO --measured run.json [--calibration c.yaml] [--json out.json] [--markdown
// out.md]`: predicted (planner, and simulator when built: each plan simulated in a child process) vs
// measured per iteration, peak memory, operator and collective size band; Markdown on stdout.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <string>

#include "apps/shardscope/command_defaults.hpp"
#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/simulation.hpp"
#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/io/text_file.hpp"
#include "validate/fit/calibration_writer.hpp"
#include "validate/fit/compare_predict.hpp"

namespace shardscope::cli {

namespace {

struct Options {
  std::string scenario, measured, calibration, json, markdown, score_into;
  double timeout_seconds = kDefaultCompareSimTimeoutSeconds;
};

// The --calibration file's calibration again, with the planner's error on the measured iterations as its
// prediction_error; what is written must read back.
std::string scored_calibration(const fit::CompareInputs& in, const fit::Comparison& c, const Options& o) {
  Calibration calibration = in.predict_calibration;
  calibration.prediction_error = fit::iteration_prediction_error(
      c, "measured iterations of " + o.measured + " (strategies of " + o.scenario + ")");
  if (!calibration.prediction_error)
    throw InputError(o.measured, 0, "iterations",
                     "no measured iteration has a planner prediction to score on");
  const std::string yaml =
      fit::calibration_yaml(calibration, "Written by `shardscope compare --score-into`: " + o.calibration +
                                             " scored on the measured\n"
                                             "iterations of " +
                                             o.measured + " (whole iterations it was not fitted on).");
  parse_calibration_string(yaml, o.score_into, in.scenario);
  return yaml;
}

}  // namespace

Registered register_compare(CLI::App& app, const Simulation* simulation) {
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
  cmd->add_option("--score-into", o->score_into,
                  "Write the --calibration file again with its error on these iterations (prediction_error)")
      ->check(non_empty("a file path"));
  cmd->add_option("--sim-timeout", o->timeout_seconds,
                  "Seconds each simulation may take (default " +
                      std::to_string(static_cast<int>(kDefaultCompareSimTimeoutSeconds)) + ")")
      ->check(CLI::Range(0.001, 86400.0));
  return {
      cmd, [o, simulation](std::ostream& out) {
        for (const auto& [option, path] :
             {std::pair{"--json", o->json}, std::pair{"--markdown", o->markdown}})
          refuse_input_as_output(option, path, {o->scenario, o->measured, o->calibration});
        if (!o->score_into.empty()) {
          if (o->calibration.empty())
            throw UsageError("--score-into", "needs --calibration: the calibration file to write scored");
          refuse_input_as_output("--score-into", o->score_into, {o->scenario, o->measured, o->calibration});
        }
        refuse_shared_outputs(
            {{"--json", o->json}, {"--markdown", o->markdown}, {"--score-into", o->score_into}});
        const OutputFile score_file =
            o->score_into.empty() ? OutputFile() : OutputFile("--score-into", o->score_into);
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
        in.measured = shardscope::load_measurements_file(o->measured);
        fit::Simulate simulate;
        if (simulation != nullptr)
          simulate =
              simulation->compare_simulator(o->scenario, o->calibration, in.scenario, o->timeout_seconds);
        const fit::Comparison c = fit::build_comparison(in, simulate);
        const std::string markdown = fit::comparison_markdown(c);
        out << markdown;
        write_together({{&json_file, json_file.requested() ? fit::comparison_json(c).dump(2) + "\n" : ""},
                        {&md_file, markdown},
                        {&score_file, score_file.requested() ? scored_calibration(in, c, *o) : ""}});
      }};
}

}  // namespace shardscope::cli
