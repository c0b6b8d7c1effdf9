// ScenarioDocument: the text and its parsed tree; edits go through the overrides' path walk and value checks
// and come back as text through yaml_text_edit.
#include "planner/io/scenario_document.hpp"

#include <filesystem>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/io/embedded_files.hpp"
#include "planner/io/internal/scenario_tree.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/internal/yaml_text_edit.hpp"
#include "planner/io/text_file.hpp"

namespace shardscope {

struct ScenarioDocument::State {
  std::string text;
  std::string file;
  std::string base_dir;
  YAML::Node tree;  // parsed from `text`, with its marks

  ScenarioOverride override_at(const std::string& path, const std::string& value = {}) const {
    ScenarioOverride o;
    o.source = file;
    o.path = path;
    o.value = value;
    o.base_dir = base_dir;
    return o;
  }
  // Takes `edited` (a changed copy of `tree`) as the document: its text made from the current one.
  void take(const YAML::Node& edited, const std::vector<FieldPathStep>& steps) {
    EditedText next = edited_yaml_text(text, tree, edited, steps, file);
    tree.reset(next.tree);
    text = std::move(next.text);
  }
};

namespace {

const char* const kPathFields[] = {"model.hf_config", "cluster.file", "planner.calibration"};

// `map[key]`, or an undefined node when `map` is not a mapping or has no such key (a missing key's node
// would throw on any question but IsDefined()).
YAML::Node field(const YAML::Node& map, const std::string& key) {
  if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node child = map[key];
  return child.IsDefined() ? child : YAML::Node(YAML::NodeType::Undefined);
}

// The preset model's file text by its name, or nullptr.
const EmbeddedFile* model_preset_file(const std::string& name) {
  for (const EmbeddedFile& file : embedded_model_files()) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

// The model's transformer section: its own, else its preset's; an undefined node when neither.
YAML::Node transformer_of(const YAML::Node& model) {
  if (field(model, "transformer").IsMap()) return field(model, "transformer");
  if (!field(model, "preset").IsScalar()) return YAML::Node(YAML::NodeType::Undefined);
  const EmbeddedFile* file = model_preset_file(field(model, "preset").Scalar());
  if (file == nullptr) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node root = parse_checked_yaml_mapping(std::string(file->text), std::string(file->file_name));
  return field(root, "transformer").IsMap() ? field(root, "transformer")
                                            : YAML::Node(YAML::NodeType::Undefined);
}

}  // namespace

ScenarioDocument::ScenarioDocument(const std::string& text, std::string file, std::string base_dir)
    : state_(std::make_unique<State>()) {
  state_->tree = parse_yaml_mapping(text, file);
  state_->text = text;
  state_->file = std::move(file);
  state_->base_dir = base_dir.empty() ? "." : std::move(base_dir);
}

ScenarioDocument ScenarioDocument::load_file(const std::string& path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  return ScenarioDocument(read_text_file(path, "scenario"), path, folder);
}

ScenarioDocument::ScenarioDocument(const ScenarioDocument& other)
    : ScenarioDocument(other.text(), other.file(), other.base_dir()) {}
ScenarioDocument& ScenarioDocument::operator=(const ScenarioDocument& other) {
  if (this != &other) *this = ScenarioDocument(other);
  return *this;
}
ScenarioDocument::ScenarioDocument(ScenarioDocument&&) noexcept = default;
ScenarioDocument& ScenarioDocument::operator=(ScenarioDocument&&) noexcept = default;
ScenarioDocument::~ScenarioDocument() = default;

const std::string& ScenarioDocument::text() const { return state_->text; }
const std::string& ScenarioDocument::file() const { return state_->file; }
const std::string& ScenarioDocument::base_dir() const { return state_->base_dir; }

std::optional<std::string> ScenarioDocument::get(const std::string& path) const {
  const std::vector<FieldPathStep> steps = parse_field_path(state_->override_at(path));
  const YAML::Node node = node_at(state_->tree, steps, steps.size());
  if (!node.IsDefined() || node.IsNull()) return std::nullopt;
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetSeqFormat(YAML::Flow);
  out.SetMapFormat(YAML::Flow);
  out << node;
  return std::string(out.c_str());
}

void ScenarioDocument::set(const std::string& path, const std::string& value) {
  const ScenarioOverride o = state_->override_at(path, value);
  YAML::Node edited = YAML::Clone(state_->tree);
  apply_override(edited, o, state_->base_dir);  // throws before anything changed
  state_->take(edited, parse_field_path(o));
}

void ScenarioDocument::remove(const std::string& path) {
  const std::vector<FieldPathStep> steps = parse_field_path(state_->override_at(path));
  if (!node_at(state_->tree, steps, steps.size()).IsDefined()) return;
  YAML::Node edited = YAML::Clone(state_->tree);
  // The field, then each section it leaves empty, from the innermost out.
  for (std::size_t depth = steps.size(); depth > 0; --depth) {
    YAML::Node parent = node_at(edited, steps, depth - 1);
    const FieldPathStep& step = steps[depth - 1];
    if (depth == steps.size() && step.index >= 0) {
      YAML::Node kept(YAML::NodeType::Sequence);  // the list without that entry
      const YAML::Node list = node_at(edited, steps, depth - 1)[step.key];
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (i != static_cast<std::size_t>(step.index)) kept.push_back(list[i]);
      }
      parent[step.key] = kept;
    } else if (depth == steps.size() ||
               (node_at(edited, steps, depth).IsMap() && node_at(edited, steps, depth).size() == 0)) {
      if (step.index >= 0) break;
      parent.remove(step.key);
    } else {
      break;
    }
  }
  state_->take(edited, steps);
}

Scenario ScenarioDocument::scenario() const {
  return parse_scenario_node(state_->tree, state_->file, state_->base_dir);
}

std::optional<std::string> ScenarioDocument::transformer_value(const std::string& key) const {
  const YAML::Node model = field(state_->tree, "model");
  if (key == "sequence_length" && field(model, key).IsScalar()) return field(model, key).Scalar();
  const YAML::Node value = field(transformer_of(model), key);
  if (!value.IsScalar()) return std::nullopt;
  return value.Scalar();
}

bool ScenarioDocument::own_transformer() {
  const YAML::Node model = field(state_->tree, "model");
  if (!model.IsMap()) return false;
  if (field(model, "transformer").IsMap()) return true;
  const YAML::Node shape = transformer_of(model);
  if (!shape.IsMap()) return false;
  YAML::Node owned(YAML::NodeType::Map);
  for (const auto& entry : model) {
    const std::string key = entry.first.Scalar();
    if (key != "preset" && key != "transformer") owned[key] = YAML::Clone(entry.second);
  }
  if (!field(owned, "name").IsDefined()) owned["name"] = field(model, "preset").Scalar() + "-edited";
  owned["transformer"] = YAML::Clone(shape);
  YAML::Node edited = YAML::Clone(state_->tree);
  edited["model"] = owned;
  state_->take(edited, {{"model", -1}});
  return true;
}

std::string ScenarioDocument::portable_text() const {
  namespace fs = std::filesystem;
  ScenarioDocument copy(*this);
  for (const char* path : kPathFields) {
    const std::vector<FieldPathStep> steps = parse_field_path(state_->override_at(path));
    const YAML::Node node = node_at(state_->tree, steps, steps.size());
    if (!node.IsScalar() || fs::path(node.Scalar()).is_absolute()) continue;
    const std::string absolute =
        fs::absolute(fs::path(state_->base_dir) / node.Scalar()).lexically_normal().string();
    YAML::Node edited = YAML::Clone(copy.state_->tree);
    YAML::Node target = node_at(edited, steps, steps.size());
    target = absolute;  // assigns the scalar in place
    copy.state_->take(edited, steps);
  }
  return copy.text();
}

}  // namespace shardscope
