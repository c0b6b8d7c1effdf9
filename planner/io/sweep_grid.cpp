// Sweep grid files: parsing and checks, deterministic expansion (product or zip, filters), and resolution
// of each point to a scenario and a stable id.
#include "planner/io/sweep_grid.hpp"

#include <algorithm>
#include <filesystem>
#include <string>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/internal/scenario_tree.hpp"
#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {
namespace {

constexpr std::size_t kMaxGridPoints = 1'000'000;

// A value as YAML text: a scalar's own text, a list or mapping in flow style ("[1, 2, 4]").
std::string value_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

std::vector<std::string> value_list(const YamlMap& map, const std::string& key) {
  const YAML::Node list = map.raw(key);
  if (!list.IsSequence() || list.size() == 0) map.fail(key, "expected a non-empty list of values");
  std::vector<std::string> out;
  for (const YAML::Node& v : list) {
    if (!v.IsDefined() || v.IsNull()) map.fail(key, "expected values, got an empty entry");
    out.push_back(value_text(v));
  }
  return out;
}

// An axis's values for a message, the first few of a long list.
std::string listed_values(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size() && i < 8; ++i) out += (i == 0 ? "" : ", ") + values[i];
  if (values.size() > 8) out += ", ... " + std::to_string(values.size()) + " in all";
  return out;
}

// A field varied on two axes, or varied and fixed by set:, where the later write replaces the earlier one,
// would label rows with values they do not have ("model: a" then "model.preset: b"). Writes go in the order
// resolve() applies them: the model and cluster axes, then set:, then the other axes in grid order.
void check_no_overlap(const YamlMap& axes, const SweepGrid& grid) {
  struct Write {
    std::string path, what;
    int order;
    bool axis;
  };
  std::vector<Write> writes;
  for (const ScenarioOverride& fixed : grid.fixed)
    writes.push_back({fixed.path, "set: " + fixed.path + " (" + fixed.source + ")", 1, false});
  for (std::size_t i = 0; i < grid.axes.size(); ++i) {
    const std::string& path = grid.axes[i].path;
    if (path == "strategy") continue;
    const int order = path == "model" || path == "cluster" ? 0 : 2 + static_cast<int>(i);
    writes.push_back({path, path, order, true});
  }
  for (const Write& later : writes) {
    for (const Write& earlier : writes) {
      if (&later == &earlier || !(later.axis || earlier.axis) || later.order < earlier.order) continue;
      if (later.order == earlier.order && &later < &earlier) continue;
      if (!override_replaces(later.path, earlier.path)) continue;
      const Write& axis = later.axis ? later : earlier;
      const Write& other = later.axis ? earlier : later;
      axes.fail(axis.what, std::string("overlaps ") + (other.axis ? "the axis " : "") + other.what +
                               ": one replaces the other, so rows would be labelled with values they do not "
                               "have; vary a field on one axis, and do not also fix it in set:");
    }
  }
}

// The registry's spelling of `name`; an unknown name fails at `key`.
std::string checked_strategy(const YamlMap& map, const std::string& key, const std::string& name,
                             const StrategyLookup& strategies) {
  std::string canonical = strategies.canonical(name);
  if (canonical.empty()) map.fail(key, strategies.unknown_message(name));
  return canonical;
}

GridFilter parse_filter(const YamlMap& map, const std::vector<GridAxis>& axes) {
  map.reject_unknown({"exclude", "only"});
  if (map.has("exclude") == map.has("only")) map.fail("exclude", "give exactly one of exclude or only");
  GridFilter filter;
  filter.exclude = map.has("exclude");
  const YamlMap conditions = map.map(filter.exclude ? "exclude" : "only");
  for (auto it = conditions.node().begin(); it != conditions.node().end(); ++it) {
    const std::string axis = it->first.Scalar();
    const auto found =
        std::find_if(axes.begin(), axes.end(), [&](const GridAxis& a) { return a.path == axis; });
    if (found == axes.end()) conditions.fail(axis, "names no axis of this grid");
    std::vector<std::string> values;
    // A copy, not it->second in the loop header: the iterator's proxy is a temporary.
    const YAML::Node listed = it->second;
    if (listed.IsSequence()) {
      for (const YAML::Node& v : listed) values.push_back(value_text(v));
    } else {
      values.push_back(value_text(listed));
    }
    for (const std::string& v : values) {
      if (std::find(found->values.begin(), found->values.end(), v) == found->values.end())
        conditions.fail(axis,
                        "'" + v + "' is not a value of the axis (" + listed_values(found->values) + ")");
    }
    filter.conditions.emplace_back(axis, values);
  }
  if (filter.conditions.empty()) map.fail(filter.exclude ? "exclude" : "only", "expected axis: value pairs");
  return filter;
}

bool matches(const GridFilter& filter, const GridPoint& point) {
  for (const auto& [axis, values] : filter.conditions) {
    const std::string& name = axis;  // a lambda may not capture a structured binding before C++20 (clang 14)
    const auto it = std::find_if(point.values.begin(), point.values.end(),
                                 [&](const auto& v) { return v.first == name; });
    if (it == point.values.end() || std::find(values.begin(), values.end(), it->second) == values.end())
      return false;
  }
  return true;
}

}  // namespace

SweepGrid parse_sweep_grid(const std::string& text, const std::string& file, const std::string& base_dir,
                           const StrategyLookup& strategies) {
  const YamlMap root(parse_yaml_mapping(text, file), file, "");
  root.reject_unknown({"name", "description", "base", "set", "strategies", "combine", "axes", "filters"});
  SweepGrid grid;
  grid.file = file;
  grid.base_dir = base_dir;
  grid.name = root.optional_name("name").value_or(std::filesystem::path(file).stem().string());
  if (root.has("base")) {
    const std::string base = root.string("base");
    grid.base_scenario = std::filesystem::path(base).is_absolute()
                             ? base
                             : (std::filesystem::path(base_dir) / base).lexically_normal().string();
  }
  if (root.has("set")) {
    const YamlMap set = root.map("set");
    for (auto it = set.node().begin(); it != set.node().end(); ++it) {
      const std::string path = it->first.Scalar();
      grid.fixed.push_back(
          {file + ":" + std::to_string(set.line(path)), path, value_text(it->second), base_dir});
    }
  }
  if (root.has("strategies")) {
    grid.strategies = value_list(root, "strategies");
    // The registry's spelling: a point reports each strategy under it ("zero-3" and "FULL_SHARD" are fsdp).
    for (std::string& s : grid.strategies) {
      const std::string canonical = checked_strategy(root, "strategies", s, strategies);
      grid.strategy_spelling[s] = canonical;
      s = canonical;
    }
  }
  const std::string combine = root.has("combine") ? root.choice("combine", {"product", "zip"}) : "product";
  grid.zip = combine == "zip";
  const YamlMap axes = root.map("axes");
  for (auto it = axes.node().begin(); it != axes.node().end(); ++it) {
    GridAxis axis;
    axis.path = it->first.Scalar();
    axis.line = axes.line(axis.path);
    axis.values = value_list(axes, axis.path);
    if (axis.path == "strategy") {
      for (const std::string& s : axis.values)
        grid.strategy_spelling[s] = checked_strategy(axes, axis.path, s, strategies);
      if (!grid.strategies.empty())
        axes.fail(axis.path, "give the strategies as an axis or as strategies:, not both");
    }
    std::vector<std::string> sorted = axis.values;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      axes.fail(axis.path, "a value is given twice");
    grid.axes.push_back(axis);
  }
  if (grid.axes.empty()) root.fail("axes", "expected at least one axis (field path: [values])");
  check_no_overlap(axes, grid);
  if (grid.zip) {
    for (const GridAxis& a : grid.axes) {
      if (a.values.size() != grid.axes.front().values.size()) {
        axes.fail(a.path, "combine: zip needs axes of one length: " + grid.axes.front().path + " has " +
                              std::to_string(grid.axes.front().values.size()) + " values, this one " +
                              std::to_string(a.values.size()));
      }
    }
  }
  if (root.has("filters")) {
    const YAML::Node list = root.raw("filters");
    if (!list.IsSequence()) root.fail("filters", "expected a list of {exclude: {...}} or {only: {...}}");
    grid.filters_line = root.line("filters");
    for (std::size_t i = 0; i < list.size(); ++i) {
      grid.filters.push_back(parse_filter(
          YamlMap(list[i], file, "filters[" + std::to_string(i) + "]", root.line("filters")), grid.axes));
    }
  }
  double product = 1;
  for (const GridAxis& a : grid.axes) product *= static_cast<double>(a.values.size());
  if (!grid.zip && product > static_cast<double>(kMaxGridPoints)) {
    root.fail("axes", "the product of the axes has " + std::to_string(static_cast<long long>(product)) +
                          " points, more than the limit of 1,000,000");
  }
  return grid;
}

SweepGrid load_sweep_grid(const std::string& path, const StrategyLookup& strategies) {
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return parse_sweep_grid(read_text_file(path, "sweep grid"), path, base_dir.empty() ? "." : base_dir,
                          strategies);
}

namespace {

std::vector<GridPoint> check_some_left(const SweepGrid& grid, std::vector<GridPoint> points) {
  if (points.empty()) {
    throw InputError(grid.file, grid.filters_line, "filters",
                     "the filters leave none of the grid's points: loosen an only: or an exclude:");
  }
  return points;
}

}  // namespace

std::vector<GridPoint> expand_grid(const SweepGrid& grid) {
  std::vector<GridPoint> out;
  const std::size_t axes = grid.axes.size();
  std::vector<std::size_t> digit(axes, 0);
  const std::size_t count = grid.zip ? grid.axes.front().values.size() : 0;
  for (std::size_t step = 0;; ++step) {
    if (grid.zip && step == count) break;
    GridPoint point;
    for (std::size_t a = 0; a < axes; ++a) {
      point.values.emplace_back(grid.axes[a].path, grid.axes[a].values[grid.zip ? step : digit[a]]);
    }
    bool keep = true;
    for (const GridFilter& f : grid.filters) {
      if (f.exclude && matches(f, point)) keep = false;
      if (!f.exclude && !matches(f, point)) keep = false;
    }
    if (keep) {
      point.index = out.size();
      out.push_back(std::move(point));
    }
    if (!grid.zip) {  // odometer: the last axis turns fastest
      std::size_t a = axes;
      while (a > 0) {
        --a;
        if (++digit[a] < grid.axes[a].values.size()) break;
        digit[a] = 0;
        if (a == 0) return check_some_left(grid, std::move(out));
      }
    }
  }
  return check_some_left(grid, std::move(out));
}

struct GridResolver::Tree {
  std::string text;  // the base scenario, parsed again for each point (overrides change the tree in place)
  std::string file;
  std::string base_dir;
};

GridResolver::GridResolver(const SweepGrid& grid) : grid_(grid), base_(std::make_unique<Tree>()) {
  if (grid.base_scenario.empty()) {
    base_->file = grid.file;
    base_->base_dir = grid.base_dir;
  } else {
    base_->text = read_text_file(grid.base_scenario, "scenario");
    parse_yaml_mapping(base_->text, grid.base_scenario);  // checked once here
    base_->file = grid.base_scenario;
    const std::string dir = std::filesystem::path(grid.base_scenario).parent_path().string();
    base_->base_dir = dir.empty() ? "." : dir;
  }
}

GridResolver::~GridResolver() = default;

ResolvedPoint GridResolver::resolve(const GridPoint& point) const {
  // The model and cluster axes replace whole sections, so they come first; then `set:`; then the other axes.
  std::vector<ScenarioOverride> sections, fields;
  ResolvedPoint out;
  out.strategies = grid_.strategies;
  for (const auto& [path, value] : point.values) {
    if (path == "strategy") {
      out.strategies = {grid_.strategy_spelling.at(value)};
      continue;
    }
    const std::string& name = path;  // a lambda may not capture a structured binding before C++20 (clang 14)
    const auto axis =
        std::find_if(grid_.axes.begin(), grid_.axes.end(), [&](const GridAxis& a) { return a.path == name; });
    ScenarioOverride o{grid_.file + ":" + std::to_string(axis->line), path, value, grid_.base_dir};
    (path == "model" || path == "cluster" ? sections : fields).push_back(o);
  }
  std::vector<ScenarioOverride> overrides = sections;
  overrides.insert(overrides.end(), grid_.fixed.begin(), grid_.fixed.end());
  overrides.insert(overrides.end(), fields.begin(), fields.end());
  if (grid_.base_scenario.empty()) {
    bool model = false, cluster = false;
    for (const ScenarioOverride& o : overrides) {
      model = model || o.path == "model" || o.path.rfind("model.", 0) == 0;
      cluster = cluster || o.path == "cluster" || o.path.rfind("cluster.", 0) == 0;
    }
    if (!model || !cluster) {
      throw InputError(grid_.file, 0, model ? "cluster" : "model",
                       "the grid has no base scenario, so its set: or axes must give the " +
                           std::string(model ? "cluster" : "model"));
    }
  }
  const YAML::Node tree = grid_.base_scenario.empty() ? YAML::Node(YAML::NodeType::Map)
                                                      : parse_checked_yaml_mapping(base_->text, base_->file);
  out.scenario = parse_scenario_with_overrides(tree, base_->file, base_->base_dir, overrides);
  if (grid_.base_scenario.empty()) out.scenario.name = grid_.name;
  // A calibration file's numbers count, not its path (scenario_digest covers neither).
  std::string key = "scenario=" + format_digest(scenario_digest(out.scenario));
  if (!out.scenario.planner.calibration_file.empty())
    key += ";calibration=" + format_digest(calibration_digest(scenario_calibration(out.scenario)));
  key += ";strategies=";
  for (const std::string& s : out.strategies) key += s + ",";
  out.id = format_digest(fnv1a_64(key));
  return out;
}

}  // namespace shardscope
