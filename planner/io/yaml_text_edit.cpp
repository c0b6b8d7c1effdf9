// Line-preserving YAML text edits: a value replaced in place, a field inserted or deleted as lines, a
// top-level section rewritten; each candidate text is parsed again and kept only when it gives the edited
// tree.
#include "planner/io/internal/yaml_text_edit.hpp"

#include <optional>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {
namespace {

using Span = std::pair<std::size_t, std::size_t>;  // [begin, end) in the text

std::size_t line_start(const std::string& text, std::size_t pos) {
  const std::size_t newline = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
  return newline == std::string::npos ? 0 : newline + 1;
}

// Just past the end of the line holding `pos` (past its '\n', or the text's end).
std::size_t line_end(const std::string& text, std::size_t pos) {
  const std::size_t newline = text.find('\n', pos);
  return newline == std::string::npos ? text.size() : newline + 1;
}

// The end of a quoted scalar or a flow collection starting at `pos`, or npos when it does not close.
std::size_t closing(const std::string& text, std::size_t pos) {
  const char open = text[pos];
  if (open == '"' || open == '\'') {
    for (std::size_t i = pos + 1; i < text.size(); ++i) {
      if (open == '"' && text[i] == '\\') {
        ++i;
      } else if (text[i] == open) {
        if (open == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' inside single quotes
        } else {
          return i + 1;
        }
      }
    }
    return std::string::npos;
  }
  int depth = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      const std::size_t end = closing(text, i);
      if (end == std::string::npos) return end;
      i = end - 1;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && --depth == 0) {
      return i + 1;
    }
  }
  return std::string::npos;
}

// Where a scalar or a flow collection is written; nullopt for block collections, block scalars, anchors and
// aliases (and nodes without a place). `in_flow`: inside a flow collection, where ',', ']' and '}' end a
// plain scalar.
std::optional<Span> value_span(const std::string& text, const YAML::Node& node, bool in_flow) {
  if (!node.IsDefined() || node.Mark().is_null()) return std::nullopt;
  const std::size_t pos = static_cast<std::size_t>(node.Mark().pos);
  if (pos >= text.size()) return std::nullopt;
  const char c = text[pos];
  if (c == '"' || c == '\'' || c == '[' || c == '{') {
    const std::size_t end = closing(text, pos);
    if (end == std::string::npos) return std::nullopt;
    return Span{pos, end};
  }
  if (!node.IsScalar() || c == '|' || c == '>' || c == '&' || c == '*' || c == '!') return std::nullopt;
  std::size_t end = pos;
  while (end < text.size() && text[end] != '\n' && text[end] != '\r') {
    if (in_flow && (text[end] == ',' || text[end] == ']' || text[end] == '}')) break;
    if (text[end] == '#' && end > pos && (text[end - 1] == ' ' || text[end - 1] == '\t')) break;
    ++end;
  }
  while (end > pos && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  return Span{pos, end};
}

// Where the last thing written for `node` ends (a block collection: its last entry's).
std::optional<std::size_t> end_of(const std::string& text, const YAML::Node& node, bool in_flow) {
  if (node.IsDefined() && node.Style() != YAML::EmitterStyle::Flow && node.size() > 0) {
    if (node.IsMap()) {
      YAML::Node last;
      for (const auto& entry : node) last.reset(entry.second);
      return end_of(text, last, false);
    }
    if (node.IsSequence()) return end_of(text, node[node.size() - 1], false);
  }
  const std::optional<Span> span = value_span(text, node, in_flow);
  if (!span) return std::nullopt;
  return span->second;
}

bool flow_above(const YAML::Node& root, const std::vector<FieldPathStep>& steps, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (node_at(root, steps, i).Style() == YAML::EmitterStyle::Flow) return true;
  }
  return false;
}

std::string emit(const YAML::Node& node, bool flow) {
  YAML::Emitter out;
  if (flow) {
    out.SetSeqFormat(YAML::Flow);
    out.SetMapFormat(YAML::Flow);
  }
  out << node;
  return out.c_str();
}

// `key: value` as block lines, each indented by `indent` spaces, ending in a newline.
std::string section_lines(const std::string& key, const YAML::Node& value, std::size_t indent) {
  YAML::Node section(YAML::NodeType::Map);
  section[key] = value;
  const std::string lines = emit(section, false) + "\n";
  std::string out;
  for (std::size_t start = 0; start < lines.size();) {
    const std::size_t end = line_end(lines, start);
    out += std::string(indent, ' ') + lines.substr(start, end - start);
    start = end;
  }
  return out;
}

std::string with_final_newline(std::string text) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

// The value at the path replaced where it is written (one line).
std::optional<std::string> in_place(const std::string& text, const YAML::Node& original,
                                    const YAML::Node& edited, const std::vector<FieldPathStep>& steps) {
  const YAML::Node before = node_at(original, steps, steps.size());
  const YAML::Node after = node_at(edited, steps, steps.size());
  if (!before.IsDefined() || !after.IsDefined()) return std::nullopt;
  const std::optional<Span> span = value_span(text, before, flow_above(original, steps, steps.size()));
  const std::string value = emit(after, true);
  if (!span || value.find('\n') != std::string::npos) return std::nullopt;
  return text.substr(0, span->first) + value + text.substr(span->second);
}

// A field new to an existing block section, as lines after that section's last line.
std::optional<std::string> insert_field(const std::string& text, const YAML::Node& original,
                                        const YAML::Node& edited, const std::vector<FieldPathStep>& steps) {
  std::size_t depth = steps.size();  // the deepest section of the path that the original has
  while (depth > 0 && !node_at(original, steps, depth).IsDefined()) --depth;
  if (depth == steps.size() || steps[depth].index >= 0) return std::nullopt;
  const YAML::Node section = node_at(original, steps, depth);
  if (!section.IsMap() || section.size() == 0 || section.Style() == YAML::EmitterStyle::Flow)
    return std::nullopt;
  const YAML::Node value = node_at(edited, steps, depth + 1);
  const std::optional<std::size_t> end = end_of(text, section, false);
  if (!value.IsDefined() || !end) return std::nullopt;
  const YAML::Node first_key = section.begin()->first;
  if (first_key.Mark().is_null()) return std::nullopt;
  const std::size_t at = line_end(text, *end);
  const std::string head = with_final_newline(text.substr(0, at));
  return head + section_lines(steps[depth].key, value, static_cast<std::size_t>(first_key.Mark().column)) +
         text.substr(at);
}

// The lines of the outermost field the edit removed (with the sections it left empty).
std::optional<std::string> remove_field(const std::string& text, const YAML::Node& original,
                                        const YAML::Node& edited, const std::vector<FieldPathStep>& steps) {
  std::size_t depth = 0;  // the outermost step whose field the edit removed
  while (depth < steps.size() && node_at(edited, steps, depth + 1).IsDefined()) ++depth;
  if (depth == steps.size() || steps[depth].index >= 0) return std::nullopt;
  const YAML::Node section = node_at(original, steps, depth);
  if (!section.IsMap() || section.Style() == YAML::EmitterStyle::Flow) return std::nullopt;
  for (const auto& entry : section) {
    if (!entry.first.IsScalar() || entry.first.Scalar() != steps[depth].key) continue;
    if (entry.first.Mark().is_null()) return std::nullopt;
    const std::size_t key = static_cast<std::size_t>(entry.first.Mark().pos);
    const std::size_t begin = line_start(text, key);
    if (text.find_first_not_of(" \t", begin) != key) return std::nullopt;  // "- key:" or "{key: ...}"
    const std::optional<std::size_t> end =
        entry.second.IsNull() ? std::optional<std::size_t>(key) : end_of(text, entry.second, false);
    if (!end) return std::nullopt;
    return text.substr(0, begin) + text.substr(line_end(text, *end));
  }
  return std::nullopt;
}

// The path's top-level section written anew (or added at the end, or deleted).
std::optional<std::string> rewrite_section(const std::string& text, const YAML::Node& original,
                                           const YAML::Node& edited, const std::string& key) {
  if (original.Style() == YAML::EmitterStyle::Flow) return std::nullopt;
  const YAML::Node after = edited[key];
  const std::string lines = after.IsDefined() ? section_lines(key, after, 0) : std::string();
  for (const auto& entry : original) {
    if (!entry.first.IsScalar() || entry.first.Scalar() != key) continue;
    if (entry.first.Mark().is_null() || entry.first.Mark().column != 0) return std::nullopt;
    const std::size_t begin = static_cast<std::size_t>(entry.first.Mark().pos);
    const std::optional<std::size_t> end =
        entry.second.IsNull() ? std::optional<std::size_t>(begin) : end_of(text, entry.second, false);
    if (!end) return std::nullopt;
    return text.substr(0, begin) + lines + text.substr(line_end(text, *end));
  }
  return with_final_newline(text) + lines;
}

// `text` parsed, when it gives the tree `edited`.
std::optional<YAML::Node> parsed_as(const std::string& text, const YAML::Node& edited,
                                    const std::string& file) {
  try {
    YAML::Node tree = parse_yaml_mapping(text, file);
    if (same_yaml_tree(tree, edited)) return tree;
  } catch (const InputError&) {
  }
  return std::nullopt;
}

}  // namespace

bool same_yaml_tree(const YAML::Node& a, const YAML::Node& b) {
  if (a.Type() != b.Type()) return false;
  if (a.IsScalar()) return a.Scalar() == b.Scalar();
  if (a.size() != b.size()) return false;
  if (a.IsSequence()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_yaml_tree(a[i], b[i])) return false;
    }
    return true;
  }
  if (!a.IsMap()) return true;  // both null, or both undefined
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (!same_yaml_tree(i->first, j->first) || !same_yaml_tree(i->second, j->second)) return false;
  }
  return true;
}

YAML::Node node_at(const YAML::Node& root, const std::vector<FieldPathStep>& steps, std::size_t count) {
  YAML::Node current;
  current.reset(root);
  for (std::size_t i = 0; i < count; ++i) {
    const FieldPathStep& step = steps[i];
    if (!current.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& map = current;
    YAML::Node child = map[step.key];
    if (!child.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    if (step.index >= 0) {
      if (!child.IsSequence() || static_cast<std::size_t>(step.index) >= child.size())
        return YAML::Node(YAML::NodeType::Undefined);
      const YAML::Node& list = child;
      YAML::Node element = list[static_cast<std::size_t>(step.index)];
      child.reset(element);
    }
    current.reset(child);
  }
  return current;
}

EditedText edited_yaml_text(const std::string& text, const YAML::Node& original, const YAML::Node& edited,
                            const std::vector<FieldPathStep>& steps, const std::string& file) {
  if (same_yaml_tree(original, edited)) return {text, original};
  if (!steps.empty()) {
    for (const auto& candidate :
         {in_place(text, original, edited, steps), insert_field(text, original, edited, steps),
          remove_field(text, original, edited, steps),
          rewrite_section(text, original, edited, steps.front().key)}) {
      if (!candidate) continue;
      if (std::optional<YAML::Node> tree = parsed_as(*candidate, edited, file)) return {*candidate, *tree};
    }
  }
  std::string whole = emit(edited, false) + "\n";
  YAML::Node tree = parse_yaml_mapping(whole, file);
  return {std::move(whole), tree};
}

}  // namespace shardscope
