// YamlMap implementation: typed getters over yaml-cpp with file/line/field errors and range checks.
#include "planner/io/internal/yaml_reader.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include "planner/core/error.hpp"
#include "planner/core/printable.hpp"
#include "planner/core/units.hpp"
#include "planner/io/input_limits.hpp"
#include "planner/io/yaml_strict.hpp"

namespace shardscope {

int line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? mark.line + 1 : 0;
}

YAML::Node parse_yaml_mapping(const std::string& text, const std::string& file) {
  if (text.find('\0') != std::string::npos) {
    throw InputError(file, 0, "", "contains NUL bytes; expected a YAML text file");
  }
  // First, on the parser's events, before any tree exists: yaml-cpp keeps the first of duplicate keys,
  // ignores later documents, would build a tree for any nesting and would spend about 500 bytes per node on
  // a list of any length; the strict check refuses these first.
  check_strict_yaml(text, file);
  return parse_checked_yaml_mapping(text, file);
}

YAML::Node parse_checked_yaml_mapping(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull())
    throw InputError(file, 0, "", "file is empty; expected a YAML mapping");
  if (!root.IsMap()) throw InputError(file, line_of(root), "", "expected a YAML mapping at the top level");
  return root;
}

YamlMap::YamlMap(const YAML::Node& node, std::string file, std::string path, int parent_line)
    : node_(node), file_(std::move(file)), path_(std::move(path)), line_(line_of(node)) {
  if (line_ == 0) line_ = parent_line;
  if (!node_.IsMap()) {
    throw InputError(file_, line_, path_, "expected a mapping (key: value lines)");
  }
}

bool YamlMap::has(const std::string& key) const {
  const YAML::Node value = node_[key];
  return value.IsDefined() && !value.IsNull();
}

YAML::Node YamlMap::raw(const std::string& key) const { return node_[key]; }

std::string YamlMap::field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

int YamlMap::line(const std::string& key) const {
  const int l = line_of(node_[key]);
  return l > 0 ? l : line_;
}

void YamlMap::fail(const std::string& key, const std::string& message) const {
  throw InputError(file_, line(key), field(key), message);
}

std::string YamlMap::scalar(const std::string& key) const {
  const YAML::Node value = node_[key];
  if (!value.IsDefined() || value.IsNull()) fail(key, "missing; this field is required");
  if (!value.IsScalar()) fail(key, "expected a single value, got a list or mapping");
  return value.Scalar();
}

std::string YamlMap::string(const std::string& key) const {
  std::string value = scalar(key);
  if (value.empty()) fail(key, "expected a non-empty string");
  return value;
}

std::optional<std::string> YamlMap::optional_string(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return string(key);
}

std::string YamlMap::name(const std::string& key) const {
  std::string value = string(key);
  if (const std::optional<std::string> reason = unprintable_reason(value)) {
    fail(key, "expected a printable name, got '" + escape_unprintable(value) + "', which " + *reason);
  }
  return value;
}

std::optional<std::string> YamlMap::optional_name(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return name(key);
}

std::int64_t YamlMap::integer(const std::string& key, std::int64_t min, std::int64_t max) const {
  const std::string text = scalar(key);
  std::int64_t value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) {
    fail(key, "'" + text + "' is out of range; expected an integer between " + std::to_string(min) + " and " +
                  std::to_string(max));
  }
  if (ec != std::errc() || ptr != last) {
    fail(key, "expected an integer, got '" + text + "'");
  }
  if (value < min || value > max) {
    fail(key, "expected an integer between " + std::to_string(min) + " and " + std::to_string(max) +
                  ", got " + text);
  }
  return value;
}

std::int64_t YamlMap::integer_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                                 std::int64_t max) const {
  return has(key) ? integer(key, min, max) : fallback;
}

double YamlMap::number(const std::string& key, double min, double max) const {
  const std::string text = scalar(key);
  double value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || !std::isfinite(value)) {
    fail(key, "expected a number, got '" + text + "'");
  }
  if (value < min || value > max) {
    std::ostringstream range;
    range << "expected a number between " << min << " and " << max << ", got " << text;
    fail(key, range.str());
  }
  return value;
}

double YamlMap::number_or(const std::string& key, double fallback, double min, double max) const {
  return has(key) ? number(key, min, max) : fallback;
}

bool YamlMap::boolean_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const std::string text = scalar(key);
  if (text == "true" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "no" || text == "off") return false;
  fail(key, "expected true or false, got '" + text + "'");
}

std::int64_t YamlMap::bytes(const std::string& key, std::int64_t min, std::int64_t max) const {
  const std::string text = scalar(key);
  std::int64_t value = 0;
  try {
    value = units::parse_bytes(text);
  } catch (const std::invalid_argument& e) {
    fail(key, e.what());
  }
  if (value < min || value > max) {
    fail(key, "expected a size between " + units::format_bytes(static_cast<double>(min)) + " and " +
                  units::format_bytes(static_cast<double>(max)) + ", got " + text);
  }
  return value;
}

std::int64_t YamlMap::bytes_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                               std::int64_t max) const {
  return has(key) ? bytes(key, min, max) : fallback;
}

double YamlMap::bandwidth(const std::string& key) const {
  const std::string text = scalar(key);
  double value = 0;
  try {
    value = units::parse_bandwidth_bytes_per_second(text);
  } catch (const std::invalid_argument& e) {
    fail(key, e.what());
  }
  if (value <= 0 || value > 1e15) fail(key, "expected a bandwidth above 0 and at most 1 PB/s, got " + text);
  return value;
}

double YamlMap::bandwidth_or(const std::string& key, double fallback) const {
  return has(key) ? bandwidth(key) : fallback;
}

double YamlMap::duration(const std::string& key) const {
  const std::string text = scalar(key);
  double value = 0;
  try {
    value = units::parse_duration_seconds(text);
  } catch (const std::invalid_argument& e) {
    fail(key, e.what());
  }
  if (value > 3600) fail(key, "expected a duration of at most one hour, got " + text);
  return value;
}

double YamlMap::duration_or(const std::string& key, double fallback) const {
  return has(key) ? duration(key) : fallback;
}

double YamlMap::flops(const std::string& key) const {
  const std::string text = scalar(key);
  double value = 0;
  try {
    value = units::parse_flops_per_second(text);
  } catch (const std::invalid_argument& e) {
    fail(key, e.what());
  }
  if (value <= 0 || value > 1e19)
    fail(key, "expected a FLOP rate above 0 and at most 10 EFLOPS, got " + text);
  return value;
}

double YamlMap::flops_or(const std::string& key, double fallback) const {
  return has(key) ? flops(key) : fallback;
}

std::vector<std::int64_t> YamlMap::integer_list(const std::string& key, std::int64_t min,
                                                std::int64_t max) const {
  const YAML::Node value = node_[key];
  if (!value.IsDefined() || value.IsNull()) fail(key, "missing; expected a list of integers");
  if (!value.IsSequence()) fail(key, "expected a list of integers such as [1, 2, 4]");
  if (value.size() == 0) fail(key, "expected a non-empty list");
  if (value.size() > 1000000) fail(key, "list is too long (more than 10^6 entries)");
  std::vector<std::int64_t> out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const YAML::Node item = value[i];
    const std::string item_field = field(key) + "[" + std::to_string(i) + "]";
    const int item_line = line_of(item) > 0 ? line_of(item) : line(key);
    if (!item.IsScalar()) throw InputError(file_, item_line, item_field, "expected an integer");
    std::int64_t v = 0;
    const std::string& text = item.Scalar();
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      throw InputError(file_, item_line, item_field, "expected an integer, got '" + text + "'");
    }
    if (v < min || v > max) {
      throw InputError(file_, item_line, item_field,
                       "expected an integer between " + std::to_string(min) + " and " + std::to_string(max) +
                           ", got " + text);
    }
    out.push_back(v);
  }
  return out;
}

std::string YamlMap::choice(const std::string& key, const std::vector<std::string>& choices) const {
  const std::string value = scalar(key);
  for (const std::string& c : choices) {
    if (c == value) return value;
  }
  const auto near = nearest_name(value, choices);
  fail(key, "expected one of " + join(choices) + ", got '" + value + "'" +
                (near ? "; did you mean '" + *near + "'?" : ""));
}

YamlMap YamlMap::map(const std::string& key) const {
  const YAML::Node value = node_[key];
  if (!value.IsDefined() || value.IsNull()) fail(key, "missing; this section is required");
  if (!value.IsMap()) fail(key, "expected a mapping (key: value lines)");
  return YamlMap(value, file_, field(key), line(key));
}

void YamlMap::reject_unknown(const std::vector<std::string>& known) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (!it->first.IsScalar()) {
      throw InputError(file_, line_of(it->first) > 0 ? line_of(it->first) : line_, path_,
                       "keys must be plain names");
    }
    const std::string key = it->first.Scalar();
    bool found = false;
    for (const std::string& k : known) found = found || k == key;
    if (!found) {
      throw InputError(file_, line_of(it->first) > 0 ? line_of(it->first) : line_, field(key),
                       "unknown key" + suggest_or_list(key, known, "expected one of:"));
    }
  }
}

int field_line(const YamlMap& root, const std::string& field) {
  int line = 0;
  YAML::Node node;
  node.reset(root.node());  // yaml-cpp: reset() rebinds a Node, operator= would overwrite the document
  std::size_t start = 0;
  while (start <= field.size()) {
    const std::size_t dot = field.find('.', start);
    std::string key = field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::size_t index = std::string::npos;
    if (const std::size_t bracket = key.find('['); bracket != std::string::npos) {
      index = std::stoul(key.substr(bracket + 1));
      key.resize(bracket);
    }
    const YAML::Node& here = node;
    if (!here.IsMap() || !here[key]) break;
    node.reset(here[key]);
    if (index != std::string::npos) {
      const YAML::Node& list = node;
      if (!list.IsSequence() || index >= list.size()) break;
      node.reset(list[index]);
    }
    line = node.Mark().line + 1;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return line > 0 ? line : root.own_line();
}

}  // namespace shardscope
