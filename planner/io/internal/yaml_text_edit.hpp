// Line-preserving edits of YAML text: the text for an edited tree made from the original text with as few
// changes as it can, so that comments and untouched lines stay byte for byte (ScenarioDocument's engine).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "planner/io/internal/scenario_tree.hpp"

namespace shardscope {

// The same tree: the same kinds, scalars, keys in the same order and elements (tags and styles aside).
bool same_yaml_tree(const YAML::Node& a, const YAML::Node& b);

// The node at the first `count` steps of `steps` under `root`, or an undefined node when it is absent.
YAML::Node node_at(const YAML::Node& root, const std::vector<FieldPathStep>& steps, std::size_t count);

// A text that parses (parse_yaml_mapping, as `file`) to `edited`, made from `text`, which parsed to
// `original` (with its marks). `steps` is the path the edit concerned. Tried in order, each checked by
// parsing the text it gives: the value replaced in place (a scalar, or a flow list or section on one line);
// a new field inserted as lines at the end of its block section; a removed field's lines deleted; the path's
// top-level section rewritten; the whole tree written out (comments lost: only when nothing else holds).
// The text comes with its tree, parsed once.
struct EditedText {
  std::string text;
  YAML::Node tree;  // `text` parsed, with its marks
};
EditedText edited_yaml_text(const std::string& text, const YAML::Node& original, const YAML::Node& edited,
                            const std::vector<FieldPathStep>& steps, const std::string& file);

}  // namespace shardscope
