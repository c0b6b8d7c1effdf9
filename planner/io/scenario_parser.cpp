// Scenario YAML -> Scenario: model (preset, HF config, transformer or operator list), cluster, training,
// planner.
#include "planner/io/scenario_parser.hpp"

#include <filesystem>
#include <string>
#include <unordered_set>

#include "planner/core/error.hpp"
#include "planner/core/printable.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/hf_config.hpp"
#include "planner/io/internal/cluster_parser.hpp"
#include "planner/io/internal/scenario_tree.hpp"
#include "planner/io/internal/transformer_yaml.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/planner_options_parser.hpp"
#include "planner/io/preset_catalog.hpp"
#include "planner/io/transformer_parser.hpp"

namespace shardscope {
namespace {

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;  // 1 PiB: far above any per-operator size

std::string resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

Operator parse_operator(const YamlMap& map) {
  map.reject_unknown({"name", "kind", "layer", "parameters", "dtype", "forward_flops_per_sample",
                      "backward_flops_per_sample", "activation_bytes_per_sample",
                      "checkpoint_bytes_per_sample", "workspace_bytes_per_sample",
                      "loss_gradient_bytes_per_sample", "selective_bytes_per_sample",
                      "selective_recompute_flops_per_sample", "splittable", "trainable", "paper"});
  Operator op;
  op.name = map.name("name");
  op.kind = map.choice_or("kind", OperatorKind::other);
  op.layer = static_cast<int>(map.integer_or("layer", -1, -1, 100000));
  op.parameters = map.integer("parameters", 0, std::int64_t{1} << 46);
  op.active_parameters = op.parameters;
  op.parameter_dtype = map.choice_or("dtype", DType::bf16);
  op.forward_flops_per_sample = map.number_or("forward_flops_per_sample", 0, 0, 1e21);
  op.backward_flops_per_sample =
      map.number_or("backward_flops_per_sample", 2 * op.forward_flops_per_sample, 0, 1e21);
  op.activation_bytes_per_sample = map.bytes_or("activation_bytes_per_sample", 0, 0, kMaxBytes);
  op.checkpoint_bytes_per_sample = map.bytes_or("checkpoint_bytes_per_sample", 0, 0, kMaxBytes);
  op.workspace_bytes_per_sample = map.bytes_or("workspace_bytes_per_sample", 0, 0, kMaxBytes);
  op.loss_gradient_bytes_per_sample = map.bytes_or("loss_gradient_bytes_per_sample", 0, 0, kMaxBytes);
  // Both or neither: an operator given as a list says what op-level selective checkpointing keeps of it.
  if (map.has("selective_bytes_per_sample") || map.has("selective_recompute_flops_per_sample")) {
    op.selective_bytes_per_sample = map.bytes("selective_bytes_per_sample", 0, kMaxBytes);
    op.selective_recompute_flops_per_sample =
        map.number("selective_recompute_flops_per_sample", 0, op.forward_flops_per_sample);
  }
  op.splittable = map.boolean_or("splittable", true);
  op.trainable = map.boolean_or("trainable", true);
  if (map.has("paper")) {
    const YamlMap paper = map.map("paper");
    paper.reject_unknown({"gamma", "parameter_bytes", "model_bytes", "activation_bytes", "extra_bytes"});
    op.paper.given = true;
    op.paper.gamma_seconds_per_sample = paper.duration("gamma");
    op.paper.parameter_bytes = static_cast<double>(paper.bytes("parameter_bytes", 0, kMaxBytes));
    op.paper.model_bytes = static_cast<double>(paper.bytes("model_bytes", 0, kMaxBytes));
    op.paper.activation_bytes_per_sample =
        static_cast<double>(paper.bytes_or("activation_bytes", 0, 0, kMaxBytes));
    op.paper.extra_bytes = static_cast<double>(paper.bytes_or("extra_bytes", 0, 0, kMaxBytes));
  }
  return op;
}

// The model, and into `spec` the generator's input when it is generated (a mesh slices it again).
Model parse_model(const YamlMap& map, const std::string& base_dir,
                  std::optional<TransformerSpec>& generated) {
  map.reject_unknown(
      {"preset", "hf_config", "transformer", "operators", "name", "sequence_length", "flash_attention"});
  const int sources = (map.has("preset") ? 1 : 0) + (map.has("hf_config") ? 1 : 0) +
                      (map.has("transformer") ? 1 : 0) + (map.has("operators") ? 1 : 0);
  if (sources != 1) {
    map.fail("preset", "give exactly one of preset, hf_config, transformer or operators");
  }
  const std::int64_t sequence = map.integer_or("sequence_length", 0, 1, 10000000);
  TransformerSpec spec;
  if (map.has("operators")) {
    if (map.has("flash_attention")) map.fail("flash_attention", "only applies to generated models");
    const YAML::Node list = map.raw("operators");
    if (!list.IsSequence() || list.size() == 0)
      map.fail("operators", "expected a non-empty list of operators");
    if (list.size() > 1000000) map.fail("operators", "more than 10^6 operators");
    Model model;
    model.name = map.optional_name("name").value_or("custom");
    model.sequence_length = sequence > 0 ? sequence : 1;
    std::unordered_set<std::string> seen;  // names so far: linear in the operator count
    seen.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YamlMap op_map(list[i], map.file(), map.field("operators") + "[" + std::to_string(i) + "]",
                           map.line("operators"));
      Operator op = parse_operator(op_map);
      if (!seen.insert(op.name).second) op_map.fail("name", "duplicate operator name '" + op.name + "'");
      model.operators.push_back(std::move(op));
    }
    return model;
  }
  if (map.has("preset")) {
    spec = model_preset(map.string("preset"), map.file(), map.line("preset"), map.field("preset"));
    if (sequence > 0) spec.sequence_length = sequence;
  } else if (map.has("hf_config")) {
    const std::string path = resolve(base_dir, map.string("hf_config"));
    spec = load_hf_config_file(path, sequence);
  } else {
    spec = parse_transformer_spec(map.map("transformer"));
    if (sequence > 0) spec.sequence_length = sequence;
  }
  if (map.has("flash_attention")) spec.flash_attention = map.boolean_or("flash_attention", true);
  if (map.has("name")) spec.name = map.name("name");
  try {
    Model model = generate_transformer(spec);
    generated = spec;
    return model;
  } catch (const std::invalid_argument& e) {
    map.fail(map.has("transformer") ? "transformer" : map.has("preset") ? "preset" : "hf_config", e.what());
  }
}

// A degree of `parallelism:` (1 when absent), or 0 for "search".
int parse_degree(const YamlMap& map, const std::string& key, int most = kMaxGpusPerNode) {
  if (!map.has(key)) return 1;
  const YAML::Node value = map.raw(key);
  if (value.IsScalar() && value.Scalar() == "search") return 0;
  return static_cast<int>(map.integer(key, 1, most));
}

// `parallelism.pipeline`: stages (1 when absent), or 0 for "search".
int parse_stages(const YamlMap& map) {
  if (!map.has("pipeline")) return 1;
  const YAML::Node value = map.raw("pipeline");
  if (value.IsScalar() && value.Scalar() == "search") return 0;
  return static_cast<int>(map.integer("pipeline", 1, kMaxNodes));
}

// `parallelism:` - tensor, context, expert and pipeline: a degree or "search", sequence_parallel: a
// boolean, expert_imbalance: a factor, the pipeline's schedule and its virtual stages (interleaved only).
ParallelismRequest parse_parallelism(const YamlMap& map) {
  map.reject_unknown({"tensor", "sequence_parallel", "context", "expert", "expert_imbalance", "pipeline",
                      "pipeline_schedule", "virtual_stages"});
  ParallelismRequest request;
  request.tensor = parse_degree(map, "tensor");
  request.context = parse_degree(map, "context");
  request.expert = parse_degree(map, "expert", 4096);  // experts per layer are at most 4096
  request.expert_imbalance = map.number_or("expert_imbalance", 1.0, 1.0, 64.0);
  request.sequence_parallel = map.boolean_or("sequence_parallel", false);
  request.pipeline = parse_stages(map);
  request.schedule = map.choice_or("pipeline_schedule", PipelineSchedule::one_f_one_b);
  request.virtual_stages = static_cast<int>(map.integer_or("virtual_stages", 1, 1, 1024));
  const bool interleaved = request.schedule == PipelineSchedule::interleaved;
  if (interleaved && request.virtual_stages < 2) {
    throw InputError(map.file(), map.line("pipeline_schedule"), map.field("virtual_stages"),
                     "the interleaved schedule needs virtual_stages of 2 or more (model chunks per GPU)");
  }
  if (!interleaved && request.virtual_stages > 1) {
    throw InputError(map.file(), map.line("virtual_stages"), map.field("virtual_stages"),
                     "virtual stages are model chunks of the interleaved schedule; set pipeline_schedule: "
                     "interleaved, or leave virtual_stages out");
  }
  return request;
}

// The scenario sliced for the degree `parallelism` fixes (a search is left to `plan`), errors at the field.
Scenario sliced_as_asked(Scenario scenario, const YamlMap& root) {
  const ParallelismRequest& asked = scenario.parallelism;
  // A pipeline's stages are sliced one by one for their nodes (report/pipeline_search.hpp).
  const TensorSlice slice = asked.slice();
  if (asked.search() || asked.pipelined() || slice.whole()) return scenario;
  try {
    return slice_scenario(scenario, slice);
  } catch (const MeshError& e) {
    throw InputError(root.file(), field_line(root, e.field()), e.field(), e.what());
  }
}

// Deep-merges `override_node` onto a copy of `base` (mappings merge key by key; anything else replaces).
YAML::Node merged(const YAML::Node& base, const YAML::Node& override_node) {
  YAML::Node out = YAML::Clone(base);
  for (auto it = override_node.begin(); it != override_node.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (key == "preset") continue;
    if (it->second.IsMap() && out[key].IsMap()) {
      out[key] = merged(out[key], it->second);
    } else {
      out[key] = it->second;
    }
  }
  return out;
}

Cluster parse_scenario_cluster(const YamlMap& map, const std::string& base_dir) {
  if (map.has("file")) {
    map.reject_unknown({"file", "nodes"});
    return load_cluster(resolve(base_dir, map.string("file")),
                        static_cast<int>(map.integer_or("nodes", 0, 1, 100000)));
  }
  if (!map.has("preset")) return parse_cluster(map);
  const EmbeddedFile& preset =
      cluster_presets().get(map.string("preset"), map.file(), map.line("preset"), map.field("preset"));
  const YAML::Node base =
      parse_checked_yaml_mapping(std::string(preset.text), cluster_presets().path_of(preset));
  // Overrides are validated with the scenario's file name; the preset itself is tested to be valid.
  return parse_cluster(YamlMap(merged(base, map.node()), map.file(), map.path(), map.own_line()));
}

TrainingConfig parse_training(const YamlMap& map, const Cluster& cluster) {
  map.reject_unknown({"global_batch", "micro_batch", "gradient_accumulation_steps", "max_micro_batch",
                      "precision", "optimizer", "checkpointing", "checkpoint_every", "slice_granularities",
                      "group_size", "memory_limit", "runtime_reserve", "batch_policy"});
  TrainingConfig t;
  t.global_batch = map.integer_or("global_batch", 0, 1, std::int64_t{1} << 40);
  t.micro_batch = map.integer_or("micro_batch", 0, 1, 1 << 20);
  t.gradient_accumulation_steps =
      static_cast<int>(map.integer_or("gradient_accumulation_steps", 1, 1, kMaxAccumulationSteps));
  t.max_micro_batch = map.integer_or("max_micro_batch", 1024, 1, 1 << 20);
  t.precision = map.choice_or("precision", Precision::mixed_bf16);
  t.optimizer = map.choice_or("optimizer", OptimizerKind::adam);
  t.checkpointing = map.choice_or("checkpointing", CheckpointPolicy::search);
  t.checkpoint_every = static_cast<int>(map.integer_or("checkpoint_every", 2, 1, 1000000));
  t.batch_policy = map.choice_or("batch_policy", t.batch_policy);  // TrainingConfig's, which plan --help says
  if (map.has("slice_granularities")) {
    t.slice_granularities.clear();
    for (std::int64_t g : map.integer_list("slice_granularities", 1, 64))
      t.slice_granularities.push_back(static_cast<int>(g));
  }
  t.group_size = static_cast<int>(map.integer_or("group_size", 0, 1, 1 << 20));
  t.memory_limit_bytes = map.bytes_or("memory_limit", 0, 1 << 20, cluster.gpu.memory_bytes);
  t.runtime_reserve_bytes = map.bytes_or("runtime_reserve", 0, 0, std::int64_t{1} << 44);
  // Defaults and the checks across fields are core's (resolve_defaults, scenario_issues): see below.
  return t;
}

}  // namespace

Scenario parse_scenario_string(const std::string& text, const std::string& file_name,
                               const std::string& base_dir) {
  return parse_scenario_node(parse_yaml_mapping(text, file_name), file_name, base_dir);
}

Scenario parse_scenario_node(const YAML::Node& node, const std::string& file_name,
                             const std::string& base_dir) {
  const YamlMap root(node, file_name, "");
  root.reject_unknown(
      {"name", "description", "model", "cluster", "training", "planner", "execution", "parallelism"});
  Scenario scenario;
  scenario.source_file = file_name;
  // Without a name, the file's stem names the scenario, its non-printable bytes escaped.
  scenario.name = root.optional_name("name").value_or(
      escape_unprintable(std::filesystem::path(file_name).stem().string()));
  scenario.model = parse_model(root.map("model"), base_dir, scenario.transformer);
  scenario.cluster = parse_scenario_cluster(root.map("cluster"), base_dir);
  if (root.has("training")) {
    scenario.training = parse_training(root.map("training"), scenario.cluster);
  } else {
    scenario.training =
        parse_training(YamlMap(YAML::Node(YAML::NodeType::Map), file_name, "training", 0), scenario.cluster);
  }
  parse_planner_options(root.raw("planner"), file_name, scenario.planner);
  parse_execution_options(root.raw("execution"), file_name, scenario.execution);
  if (!scenario.planner.calibration_file.empty()) {
    scenario.planner.calibration_file = resolve(base_dir, scenario.planner.calibration_file);
  }
  resolve_defaults(scenario);
  if (root.has("parallelism")) {
    scenario.parallelism = parse_parallelism(root.map("parallelism"));
    scenario = sliced_as_asked(std::move(scenario), root);
  }
  const std::vector<ScenarioIssue> issues = scenario_issues(scenario);
  if (!issues.empty()) {
    throw InputError(file_name, field_line(root, issues.front().field), issues.front().field,
                     issues.front().message);
  }
  return scenario;
}

Scenario load_scenario_file(const std::string& path) {
  const std::string text = read_text_file(path, "scenario");
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return parse_scenario_string(text, path, base_dir.empty() ? "." : base_dir);
}

}  // namespace shardscope
