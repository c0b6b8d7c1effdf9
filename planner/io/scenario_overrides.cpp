// Field-path overrides of a scenario's YAML tree (--set, --model, --cluster, --nodes, sweep axes), and the
// scenario they give, with errors in overridden fields blamed on the override.
#include "planner/io/scenario_overrides.hpp"

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/names.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/internal/scenario_tree.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/preset_catalog.hpp"

namespace shardscope {
namespace {

// The error override `o` causes at `field`: "--set PATH=VALUE: message" for an option (the field named too
// when it is not the one the option sets), else at the override's place in its file.
[[noreturn]] void blame(const ScenarioOverride& o, const std::string& field, const std::string& message) {
  if (!o.option) throw InputError(o.source, 0, field, message);
  const bool set_by_option = field.empty() || field == o.path || field == o.path + ".preset" ||
                             field == o.path + ".hf_config" || field == o.path + ".file";
  throw UsageError(o.source, set_by_option ? message : field + ": " + message);
}

[[noreturn]] void fail(const ScenarioOverride& o, const std::string& message) { blame(o, o.path, message); }

bool plain_key(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

std::vector<FieldPathStep> parse_field_path(const ScenarioOverride& o) {
  std::vector<FieldPathStep> steps;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = o.path.find('.', start);
    std::string part = o.path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    FieldPathStep step;
    if (const std::size_t bracket = part.find('['); bracket != std::string::npos) {
      const std::string digits = part.substr(bracket + 1, part.size() - bracket - 2);
      const bool digits_only =
          !digits.empty() && digits.size() < 8 && digits.find_first_not_of("0123456789") == std::string::npos;
      if (part.back() != ']' || !digits_only) {
        fail(o, "malformed field path: expected KEY[INDEX] with a whole number, got '" + part + "'");
      }
      step.index = std::stol(digits);
      part.resize(bracket);
    }
    if (!plain_key(part)) {
      fail(o,
           "malformed field path: expected dotted names such as training.memory_limit, got '" + o.path + "'");
    }
    step.key = part;
    steps.push_back(step);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return steps;
}

namespace {

YAML::Node parse_value(const ScenarioOverride& o) {
  if (o.value.empty()) fail(o, "expected a value after '='");
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    fail(o, "malformed value '" + o.value + "': " + e.msg);
  }
  if (!value.IsDefined() || value.IsNull()) fail(o, "expected a value, got '" + o.value + "' (null)");
  return value;
}

// `value`, a path relative to `from`, as a path relative to `to` (absolute paths stay).
std::string rebased(const std::string& value, const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  if (fs::path(value).is_absolute() || from == to) return fs::path(value).lexically_normal().string();
  const fs::path target = fs::absolute(fs::path(from) / value).lexically_normal();
  return target.lexically_proximate(fs::absolute(to).lexically_normal()).string();
}

bool is_path_field(const std::string& path) {
  return path == "model.hf_config" || path == "cluster.file" || path == "planner.calibration";
}

// A scalar `model` value that names a file rather than a preset.
bool names_a_file(const std::string& value) {
  return value.find('/') != std::string::npos ||
         (value.size() > 5 && value.compare(value.size() - 5, 5, ".json") == 0);
}

const char* const kModelSources[] = {"preset", "hf_config", "transformer", "operators"};

// "a" is "a.b", "a" or "a[2].c"'s ancestor (or the same): an error in one concerns the other.
bool on_same_branch(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  if (shorter.empty() || longer.compare(0, shorter.size(), shorter) != 0) return false;
  return longer.size() == shorter.size() || longer[shorter.size()] == '.' || longer[shorter.size()] == '[';
}

// A field inside the model's transformer (or operators) when the model comes from elsewhere (a preset):
// the result would have two sources, an error blamed on the scenario file the user did not change.
void check_model_source(const ScenarioOverride& o, const YAML::Node& model, const std::string& source) {
  for (const char* other : kModelSources) {
    if (other == source || !model[other].IsDefined()) continue;
    const YAML::Node given = model[other];
    fail(o, "the model here is given by " + std::string(other) +
                (given.IsScalar() ? " (" + given.Scalar() + ")" : std::string()) + ", not by " + source +
                ": set the whole model." + source + "={...}, or choose the model with --model or model=");
  }
}

}  // namespace

bool override_replaces(const std::string& later, const std::string& earlier) {
  // A scalar `model` and each model source write one field, the model's source; `cluster` writes the whole
  // section (a preset), so it replaces every cluster field before it.
  const auto written = [](const std::string& path) {
    if (path == "model") return std::string("model.(source)");
    for (const std::string source :
         {"model.preset", "model.hf_config", "model.transformer", "model.operators"}) {
      if (on_same_branch(source, path) && path.size() >= source.size())
        return "model.(source)" + path.substr(source.size());
    }
    return path;
  };
  const std::string a = written(later), b = written(earlier);
  return b.size() >= a.size() && on_same_branch(a, b);
}

void check_overrides_keep_each_other(const std::vector<ScenarioOverride>& overrides) {
  for (std::size_t j = 0; j < overrides.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      if (!override_replaces(overrides[j].path, overrides[i].path)) continue;
      blame(overrides[j], overrides[j].path,
            "replaces what " + overrides[i].source +
                " gave, which would be lost; give each field once (a preset first, then its fields)");
    }
  }
}

ScenarioOverride option_override(std::string option, std::string path, std::string value) {
  ScenarioOverride o;
  o.source = std::move(option);
  o.path = std::move(path);
  o.value = std::move(value);
  o.option = true;
  return o;
}

ScenarioOverride parse_set_argument(const std::string& text, const std::string& option) {
  const std::size_t equals = text.find('=');
  const std::string source = option + " " + text;
  if (equals == std::string::npos)
    throw UsageError(source, "expected PATH=VALUE (for example training.memory_limit=16GB)");
  ScenarioOverride o = option_override(source, text.substr(0, equals), text.substr(equals + 1));
  if (o.path.empty()) throw UsageError(source, "expected a field path before '='");
  if (o.value.empty()) throw UsageError(source, "expected a value after '='");
  return o;
}

void apply_override(YAML::Node& root, const ScenarioOverride& given, const std::string& scenario_base_dir) {
  ScenarioOverride o = given;
  YAML::Node value = parse_value(o);
  // The two shorthands: a model preset or config.json, and a cluster preset.
  if (o.path == "model" && value.IsScalar()) {
    const bool file = names_a_file(o.value);
    o.path = file ? "model.hf_config" : "model.preset";
  } else if (o.path == "cluster" && value.IsScalar()) {
    YAML::Node cluster(YAML::NodeType::Map);
    if (names_cluster_file(o.value, o.base_dir)) {
      cluster["file"] = rebased(o.value, o.base_dir, scenario_base_dir);
    } else {
      cluster["preset"] = value;
    }
    root["cluster"] = cluster;
    return;
  }
  if (is_path_field(o.path)) {
    if (!value.IsScalar()) fail(o, "expected a file path, got a list or mapping");
    value = YAML::Node(rebased(value.Scalar(), o.base_dir, scenario_base_dir));
  }
  const std::vector<FieldPathStep> steps = parse_field_path(o);
  YAML::Node current;
  current.reset(root);
  std::string walked;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const FieldPathStep& step = steps[i];
    if (!current.IsMap()) fail(o, "'" + walked + "' holds a single value or a list, not a section of fields");
    walked += (walked.empty() ? "" : ".") + step.key;
    const bool last = i + 1 == steps.size();
    if (last && step.index < 0) {
      if (walked == "model.preset" || walked == "model.hf_config" || walked == "model.transformer" ||
          walked == "model.operators") {
        for (const char* source : kModelSources) current.remove(source);  // one model source at a time
      }
      if (walked == "cluster.preset" || walked == "cluster.file") {
        for (const char* source : {"preset", "file"}) current.remove(source);  // one cluster source
      }
      current[step.key] = value;
      return;
    }
    if (walked == "model.transformer" || walked == "model.operators")
      check_model_source(o, current, step.key);
    YAML::Node child = current[step.key];
    if (!child.IsDefined() || child.IsNull()) {
      if (step.index >= 0) fail(o, "'" + walked + "' is not a list in this scenario");
      current[step.key] = YAML::Node(YAML::NodeType::Map);
      child.reset(current[step.key]);
    }
    if (step.index >= 0) {
      if (!child.IsSequence()) fail(o, "'" + walked + "' is not a list");
      if (static_cast<std::size_t>(step.index) >= child.size()) {
        fail(o, "'" + walked + "' has " + std::to_string(child.size()) + " entries; index " +
                    std::to_string(step.index) + " is past its end");
      }
      walked += "[" + std::to_string(step.index) + "]";
      if (last) {
        child[static_cast<std::size_t>(step.index)] = value;
        return;
      }
      YAML::Node element = child[static_cast<std::size_t>(step.index)];
      current.reset(element);
    } else {
      current.reset(child);
    }
  }
}

namespace {

// Whether `base` (a copy, without marks) with the first `count` overrides applied parses as a scenario.
bool parses_with(const YAML::Node& base, const std::string& file_name, const std::string& base_dir,
                 const std::vector<ScenarioOverride>& overrides, std::size_t count) {
  YAML::Node tree = YAML::Clone(base);
  try {
    for (std::size_t i = 0; i < count; ++i) apply_override(tree, overrides[i], base_dir);
    parse_scenario_node(tree, file_name, base_dir);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Names the override that caused `e`, an error of the scenario with `overrides` applied to `pristine`
// (a copy of its tree before they were); rethrows `e` when the error is the file's own.
[[noreturn]] void blame_overrides(const InputError& e, const YAML::Node& pristine,
                                  const std::string& file_name, const std::string& base_dir,
                                  const std::vector<ScenarioOverride>& overrides) {
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    if (on_same_branch(it->path, e.field())) blame(*it, e.field(), e.message());  // "model", "cluster" too
  }
  // An error elsewhere, in a scenario that parses without the overrides, is the first override's after which
  // it no longer does: named with the field the check failed on, and the file's place when the field is in
  // another section (cluster.gpus_per_node against the preset's switch layout is the override's own section).
  const auto section = [](const std::string& path) { return path.substr(0, path.find_first_of(".[")); };
  if (!overrides.empty() && parses_with(pristine, file_name, base_dir, overrides, 0)) {
    for (std::size_t count = 1; count <= overrides.size(); ++count) {
      if (parses_with(pristine, file_name, base_dir, overrides, count)) continue;
      const ScenarioOverride& o = overrides[count - 1];
      const bool elsewhere = section(o.path) != section(e.field()) && e.line() > 0;
      const std::string place = elsewhere ? " (" + e.file() + ":" + std::to_string(e.line()) + ")" : "";
      blame(o, o.path, "with this value, " + e.field() + place + ": " + e.message());
    }
  }
  // Without that (no scenario file): an override of the field's section is named.
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
    if (section(it->path) != section(e.field())) continue;
    blame(*it, it->path, "with this value, " + e.field() + ": " + e.message());
  }
  throw;  // `e`, the error being handled
}

}  // namespace

Scenario parse_scenario_with_overrides(const YAML::Node& base, const std::string& file_name,
                                       const std::string& base_dir,
                                       const std::vector<ScenarioOverride>& overrides) {
  check_overrides_keep_each_other(overrides);
  // The tree before the overrides, to find the one that causes an error (without marks: YAML::Clone drops
  // them, so the overrides are applied in place, and the file's errors keep their line numbers).
  const YAML::Node pristine = overrides.empty() ? YAML::Node() : YAML::Clone(base);
  YAML::Node tree = base;
  for (const ScenarioOverride& o : overrides) apply_override(tree, o, base_dir);
  try {
    return parse_scenario_node(tree, file_name, base_dir);
  } catch (const InputError& e) {
    blame_overrides(e, pristine, file_name, base_dir, overrides);
  }
}

Scenario load_scenario_with_overrides(const std::string& scenario_file,
                                      const std::vector<ScenarioOverride>& overrides) {
  if (!scenario_file.empty()) {
    const std::string base_dir = std::filesystem::path(scenario_file).parent_path().string();
    const YAML::Node tree = parse_yaml_mapping(read_text_file(scenario_file, "scenario"), scenario_file);
    return parse_scenario_with_overrides(tree, scenario_file, base_dir.empty() ? "." : base_dir, overrides);
  }
  // No scenario file: the overrides are the scenario, and must give at least a model and a cluster.
  check_overrides_keep_each_other(overrides);
  YAML::Node tree(YAML::NodeType::Map);
  for (const ScenarioOverride& o : overrides) apply_override(tree, o, ".");
  const char* const source = "command line";
  if (!tree["model"].IsDefined()) {
    throw InputError(source, 0, "model",
                     "no scenario file and no model: give a scenario file, or --model with a model preset (" +
                         join(model_presets().names()) + ") or a Hugging Face config.json");
  }
  if (!tree["cluster"].IsDefined()) {
    throw InputError(source, 0, "cluster",
                     "no scenario file and no cluster: give a scenario file, or --cluster with a cluster "
                     "preset (" +
                         join(cluster_presets().names()) + ")");
  }
  const bool named = tree["name"].IsDefined();
  Scenario scenario = parse_scenario_with_overrides(YAML::Node(YAML::NodeType::Map), source, ".", overrides);
  if (!named) scenario.name = scenario.model.name + " on " + scenario.cluster.name;
  return scenario;
}

}  // namespace shardscope
