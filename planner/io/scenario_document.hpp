// ScenarioDocument: a scenario's YAML text edited field by field, by the dotted paths `--set` uses, and
// written back with its comments and the lines no edit touched byte for byte as they were.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "planner/core/scenario.hpp"

namespace shardscope {

// The text is the document: each edit changes the text as little as it can (a scalar's value in place, a
// new field as a new line in its section, a removed field's lines deleted), and the text is parsed again and
// checked to hold exactly the tree the edit asked for. An edit the text cannot take in place (a list that
// was written as block lines, a field inside a multi-line flow section) rewrites its top-level section;
// every other section, and the comments outside it, stay as they were.
class ScenarioDocument {
 public:
  // Parses `text` as the strict reader does (one document, a mapping, no key twice); errors are InputErrors
  // naming `file` and the line. Relative file paths in it (model.hf_config, cluster.file,
  // planner.calibration) resolve against `base_dir`.
  explicit ScenarioDocument(const std::string& text, std::string file = "untitled.yaml",
                            std::string base_dir = ".");
  // Reads a scenario file (read_text_file: a folder, a missing file and one over the input limit are told
  // apart); its folder is the base directory.
  static ScenarioDocument load_file(const std::string& path);

  ScenarioDocument(const ScenarioDocument& other);
  ScenarioDocument& operator=(const ScenarioDocument& other);
  ScenarioDocument(ScenarioDocument&&) noexcept;
  ScenarioDocument& operator=(ScenarioDocument&&) noexcept;
  ~ScenarioDocument();

  const std::string& text() const;  // the document as it would be saved
  const std::string& file() const;
  const std::string& base_dir() const;

  // The value at `path` ("training.memory_limit", "model.operators[3].name") as YAML text: a scalar's own
  // text ("8GB"), a list or section in flow style ("[1, 2, 4]"); nullopt when the document does not give
  // it. A malformed path is an InputError naming it and what was expected.
  std::optional<std::string> get(const std::string& path) const;
  // Sets `path` to `value` (YAML text) as `--set path=value` does: the same path walk (sections made as
  // needed), the same shorthands ("model", "cluster") and value checks. A malformed path or value, a path
  // through a single value, an index past a list's end: an InputError naming the document, the path and
  // what was expected; the document is then unchanged. The value's meaning is judged by scenario().
  void set(const std::string& path, const std::string& value);
  // Removes the field at `path` and the sections that it leaves empty; nothing when it is absent.
  void remove(const std::string& path);

  // The document parsed as a scenario file is (errors name the field and its line in text()).
  Scenario scenario() const;

  // The model's transformer field `key` ("layers", "hidden", "heads", "sequence_length"): from the model's
  // own transformer section, or its preset's; a model-level sequence_length wins. nullopt when the model has
  // no transformer (operators, a config.json) or no such key.
  std::optional<std::string> transformer_value(const std::string& key) const;
  // Makes a preset model its own: `model: {preset: P}` becomes the preset's transformer section, named
  // "P-edited" unless the model is named, so that its shape can be set field by field. True when the model is
  // now given by a transformer section (it already was, or the preset has one).
  bool own_transformer();

  // The text with its relative file paths made absolute (against base_dir()): it parses the same from any
  // folder (what a child simulator is given).
  std::string portable_text() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace shardscope
