// Scenario options shared by inspect, plan and simulate: the file, and the field-path overrides on it.
#include "apps/shardscope/scenario_flags.hpp"

#include <CLI/CLI.hpp>

#include "apps/shardscope/option_checks.hpp"
#include "planner/core/names.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/core/units.hpp"
#include "planner/io/scenario_overrides.hpp"

namespace shardscope::cli {
namespace {

bool is_json_file(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

}  // namespace

bool ScenarioFlags::overridden() const {
  return is_json_file(scenario) || !sets.empty() || !model.empty() || !cluster.empty() || nodes > 0 ||
         !runtime.empty() || !tensor.empty() || sequence_parallel || !context.empty() || !expert.empty() ||
         !pipeline.empty();
}

std::string ScenarioFlags::scenario_file() const { return is_json_file(scenario) ? "" : scenario; }

std::vector<ScenarioOverride> ScenarioFlags::overrides() const {
  std::vector<ScenarioOverride> out;
  if (is_json_file(scenario)) out.push_back(option_override("SCENARIO " + scenario, "model", scenario));
  if (!model.empty()) out.push_back(option_override("--model " + model, "model", model));
  if (!cluster.empty()) out.push_back(option_override("--cluster " + cluster, "cluster", cluster));
  if (nodes > 0) {
    const std::string count = std::to_string(nodes);
    out.push_back(option_override("--nodes " + count, "cluster.nodes", count));
  }
  if (!runtime.empty()) out.push_back(option_override("--runtime " + runtime, "execution.runtime", runtime));
  if (!tensor.empty()) out.push_back(option_override("--tp " + tensor, "parallelism.tensor", tensor));
  if (sequence_parallel) out.push_back(option_override("--sp", "parallelism.sequence_parallel", "true"));
  if (!context.empty()) out.push_back(option_override("--cp " + context, "parallelism.context", context));
  if (!expert.empty()) out.push_back(option_override("--ep " + expert, "parallelism.expert", expert));
  if (!pipeline.empty()) out.push_back(option_override("--pp " + pipeline, "parallelism.pipeline", pipeline));
  for (const std::string& set : sets) out.push_back(parse_set_argument(set, "--set"));
  return out;
}

Scenario ScenarioFlags::load() const { return load_scenario_with_overrides(scenario_file(), overrides()); }

std::string ScenarioFlags::gpu_label(const Scenario& resolved) const {
  const std::string& name = resolved.cluster.gpu.name;
  for (const ScenarioOverride& o : overrides()) {
    if (o.path == "cluster.gpu.memory")
      return name + " (memory set to " +
             units::format_bytes(static_cast<double>(resolved.cluster.gpu.memory_bytes)) + ")";
  }
  return name;
}

void add_scenario_flags(CLI::App& command, ScenarioFlags& flags) {
  command
      .add_option("scenario", flags.scenario,
                  "Scenario YAML file, or a Hugging Face config.json (then give --cluster); optional with "
                  "--model and --cluster")
      ->check(non_empty("a file path"));
  command
      .add_option("--set", flags.sets,
                  "Override a scenario field by its path, e.g. --set training.memory_limit=16GB (repeatable)")
      ->check(non_empty("PATH=VALUE"))
      ->type_name("PATH=VALUE")
      ->allow_extra_args(false);
  command
      .add_option("--model", flags.model,
                  "A model preset or a Hugging Face config.json instead of the scenario's")
      ->check(non_empty("a model preset or a config.json path"));
  command
      .add_option("--cluster", flags.cluster,
                  "A cluster preset or cluster YAML file instead of the scenario's")
      ->check(non_empty("a cluster preset or file"));
  command.add_option("--nodes", flags.nodes, "The cluster's node count (cluster.nodes)")
      ->check(CLI::Range(1, 100000));
  command
      .add_option("--runtime", flags.runtime,
                  "The framework that runs the iteration (execution.runtime): " +
                      join(names<RuntimeName>(), ", ") + " (scenarios/runtimes/)")
      ->check(CLI::IsMember(names<RuntimeName>()));
  command
      .add_option(
          "--tp", flags.tensor,
          "Tensor-parallel degree inside a node (parallelism.tensor), or 'search': plan compares every "
          "degree that divides the model and a node")
      ->check(non_empty("a degree or 'search'"))
      ->type_name("N|search");
  command.add_flag("--sp", flags.sequence_parallel,
                   "Sequence parallelism with tensor parallelism (parallelism.sequence_parallel)");
  command
      .add_option("--cp", flags.context,
                  "Context-parallel degree (parallelism.context): each sequence cut into N chunks, ring "
                  "attention; or 'search'")
      ->check(non_empty("a degree or 'search'"))
      ->type_name("N|search");
  command
      .add_option("--ep", flags.expert,
                  "Expert-parallel degree of an MoE model (parallelism.expert): each layer's experts split "
                  "over N data-parallel GPUs, tokens sent to them by all-to-all; or 'search'")
      ->check(non_empty("a degree or 'search'"))
      ->type_name("N|search");
  command
      .add_option("--pp", flags.pipeline,
                  "Pipeline stages, over whole nodes or inside one (parallelism.pipeline), or 'search'; "
                  "planned by plan, simulated by simulate")
      ->check(non_empty("a stage count or 'search'"))
      ->type_name("N|search");
}

}  // namespace shardscope::cli
