// `shardscope reproduce FILE... [--calibration c.yaml] [--json out.json] [--markdown out.md]`: predicts every
// row of published measurements (validate/published/*.yaml) and prints each row's error and each source's
// and part's MAPE, bias and rank agreement (Markdown on stdout).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/simulation.hpp"
#include "planner/core/error.hpp"
#include "planner/core/names.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/io/text_file.hpp"
#include "validate/fit/published.hpp"
#include "validate/fit/reproduce_report.hpp"

namespace shardscope::cli {

namespace {

struct Options {
  std::vector<std::string> files;
  std::string calibration, json, markdown;
  std::string runtime;  // empty: each file's runtime_profile
  bool simulate = false;
  int sim_max_gpus = 64;
};

fit::Reproduction reproduce(const Options& o, const Simulation* simulation) {
  fit::ReproduceOptions options;
  options.calibration_text = o.calibration.empty() ? "" : read_text_file(o.calibration, "calibration");
  options.calibration_file = o.calibration;
  if (!o.runtime.empty()) options.runtime = parse_name<RuntimeName>(o.runtime);
  if (o.simulate) {
    if (simulation == nullptr)
      throw UsageError("--simulate", "this shardscope was built without the simulator (SimGrid)");
    options.simulate = simulation->row_simulator(o.sim_max_gpus);
  }
  std::vector<fit::SourceReproduction> sources;
  for (const std::string& file : o.files)
    sources.push_back(fit::reproduce_table(fit::load_published_file(file), options));
  return fit::make_reproduction(
      std::move(sources), o.calibration.empty() ? "none (the presets' defaults)" : "`" + o.calibration + "`");
}

}  // namespace

Registered register_reproduce(CLI::App& app, const Simulation* simulation) {
  auto* cmd = app.add_subcommand("reproduce", "Predict published measurements and score the predictions");
  auto o = std::make_shared<Options>();
  cmd->add_option("files", o->files, "Published-measurements YAML files (validate/published/)")
      ->required()
      ->check(non_empty("a file path"));
  cmd->add_option("--calibration", o->calibration, "Predict every row with this calibration")
      ->check(non_empty("a file path"));
  cmd->add_option(
         "--runtime", o->runtime,
         "Predict with this runtime profile instead of each file's runtime_profile: " +
             join(names<RuntimeName>(), ", ") +
             " (rows with torch.compile or Float8 priced without what it cannot price: ideal neither, "
             "deepspeed no compile)")
      ->check(CLI::IsMember(names<RuntimeName>()));
  cmd->add_option("--json", o->json, "Also write the rows and summaries as JSON")
      ->check(non_empty("a file path"));
  cmd->add_option("--markdown", o->markdown, "Also write the Markdown report to a file")
      ->check(non_empty("a file path"));
  cmd->add_flag(
      "--simulate", o->simulate,
      "Also simulate each row's plan (SimGrid, one forked process per row) and score the simulator");
  cmd->add_option("--sim-max-gpus", o->sim_max_gpus,
                  "With --simulate: simulate only rows on at most this many GPUs (default 64)")
      ->check(CLI::Range(1, 16384));
  return {
      cmd, [o, simulation](std::ostream& out) {
        std::vector<std::string> inputs = o->files;
        inputs.push_back(o->calibration);
        for (const auto& [option, path] :
             {std::pair{"--json", o->json}, std::pair{"--markdown", o->markdown}})
          refuse_input_as_output(option, path, inputs);
        refuse_shared_outputs({{"--json", o->json}, {"--markdown", o->markdown}});
        const OutputFile json_file = o->json.empty() ? OutputFile() : OutputFile("--json", o->json);
        const OutputFile md_file = o->markdown.empty() ? OutputFile() : OutputFile("--markdown", o->markdown);
        const fit::Reproduction r = reproduce(*o, simulation);
        const std::string markdown = fit::reproduction_markdown(r);
        out << markdown;
        write_together({{&json_file, json_file.requested() ? fit::reproduction_json(r).dump(2) + "\n" : ""},
                        {&md_file, markdown}});
      }};
}

}  // namespace shardscope::cli
