// YamlMap: typed, line-aware access to one YAML mapping; every failure is an InputError naming file, line,
// field.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/names.hpp"
#include "planner/io/input_limits.hpp"
#include "planner/io/text_file.hpp"

namespace shardscope {

// Parses YAML text; malformed YAML, an empty document, a document that is not a mapping, a second document,
// a key given twice in one mapping, a key that is not a plain name (a list, a mapping, null or empty),
// nesting deeper than kMaxNestingDepth and more than kMaxInputNodes nodes (checked before the tree is built)
// are errors.
YAML::Node parse_yaml_mapping(const std::string& text, const std::string& file);
// The same for a text already known to pass the strict check: an embedded preset (each is parsed by
// parse_yaml_mapping in the tests) or a text this process parsed before (a sweep grid's base scenario,
// parsed again for each point). Skips the strict check's event pass, half the cost of a parse.
YAML::Node parse_checked_yaml_mapping(const std::string& text, const std::string& file);

int line_of(const YAML::Node& node);  // 1-based, 0 when unknown

class YamlMap;
// The line of a dotted field path under `root` ("training.group_size", "model.operators[3].name"): the
// deepest key of the path present in the file (a field that came from a preset or a default points at its
// section; one absent altogether at the root's own line).
int field_line(const YamlMap& root, const std::string& field);

class YamlMap {
 public:
  // `node` must be a mapping (checked); `path` is the dotted field path of the node ("" for the root).
  YamlMap(const YAML::Node& node, std::string file, std::string path, int parent_line = 0);

  bool has(const std::string& key) const;
  YAML::Node raw(const std::string& key) const;
  const YAML::Node& node() const { return node_; }
  std::string field(const std::string& key) const;  // "path.key"
  int line(const std::string& key) const;           // line of the value, or of the mapping itself
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  int own_line() const { return line_; }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  std::string string(const std::string& key) const;
  std::optional<std::string> optional_string(const std::string& key) const;
  // A name the tool prints: a non-empty string of printable UTF-8 (core/printable.hpp); a control character
  // or invalid UTF-8 is an error naming the key's line.
  std::string name(const std::string& key) const;
  std::optional<std::string> optional_name(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) const;
  std::int64_t integer_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                          std::int64_t max) const;
  double number(const std::string& key, double min, double max) const;
  double number_or(const std::string& key, double fallback, double min, double max) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  std::int64_t bytes(const std::string& key, std::int64_t min, std::int64_t max) const;
  std::int64_t bytes_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                        std::int64_t max) const;
  double bandwidth(const std::string& key) const;  // positive bytes/s
  double bandwidth_or(const std::string& key, double fallback) const;
  double duration(const std::string& key) const;  // non-negative seconds
  double duration_or(const std::string& key, double fallback) const;
  double flops(const std::string& key) const;  // positive FLOP/s
  double flops_or(const std::string& key, double fallback) const;
  std::vector<std::int64_t> integer_list(const std::string& key, std::int64_t min, std::int64_t max) const;
  // One of `choices`; the error lists them and suggests the nearest when the value looks like a typo.
  std::string choice(const std::string& key, const std::vector<std::string>& choices) const;
  // One of the enum's names (its EnumNames table).
  template <NamedEnum E>
  E choice(const std::string& key) const {
    return *parse_name<E>(choice(key, names<E>()));
  }
  template <NamedEnum E>
  E choice_or(const std::string& key, E fallback) const {
    return has(key) ? choice<E>(key) : fallback;
  }
  YamlMap map(const std::string& key) const;  // a nested mapping (must exist)

  // Errors on any key not in `known` (typo protection), naming its line and suggesting the nearest key.
  void reject_unknown(const std::vector<std::string>& known) const;

 private:
  std::string scalar(const std::string& key) const;
  YAML::Node node_;
  std::string file_;
  std::string path_;
  int line_;
};

}  // namespace shardscope
