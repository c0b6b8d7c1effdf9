// Typed reading of JSON objects with file:line: field: message errors (Hugging Face configs, plan files).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace shardscope {

// A parsed JSON text that remembers the line of every value (by JSON pointer) for error messages.
class JsonDocument {
 public:
  // Throws InputError "malformed JSON" (with the line where parsing stopped) when the text is not JSON,
  // "duplicate key (first given at line N)" at a key given twice in one object, "nesting too deep" at the
  // bracket that nests more than kMaxNestingDepth arrays and objects (planner/io/input_limits.hpp), and "more
  // than N JSON values" past kMaxInputNodes (counted while parsing).
  JsonDocument(const std::string& text, std::string file);

  const nlohmann::json& root() const { return json_; }
  const std::string& file() const { return file_; }
  // The line of the value at `pointer` ("" is the root; "/plan/operators/3/p_scope"): for an object member
  // the line of its key. 0 when there is no such value.
  int line(const std::string& pointer) const;

 private:
  std::string file_;
  nlohmann::json json_;
  std::map<std::string, int> lines_;
};

// Refuses (InputError at `file`, the line of the bracket) JSON text whose arrays and objects nest deeper
// than kMaxNestingDepth, before it is parsed: a parser would recurse through them. `first_line` is the line
// the text starts at (a results file's row).
void check_json_nesting(const std::string& text, const std::string& file, int first_line = 1);

// Typed access to one JSON object of a document. Errors name the key's line (see line()) and the field
// `field_prefix + key`, e.g. "plan.operators[3].p_scope".
class JsonObjectReader {
 public:
  // `pointer` locates the object in `document` ("" for the root). `missing_hint` follows "missing" in the
  // message for a required key that is absent (e.g. "; this key is required for model_type llama").
  // Throws InputError when the value at `pointer` is not an object.
  JsonObjectReader(const JsonDocument& document, std::string pointer, std::string field_prefix = "",
                   std::string missing_hint = "");

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  // The key's line; when the key is absent, the object's line (0, the whole file, for the root object).
  int line(const std::string& key) const;
  bool has(const std::string& key) const;                     // present and not null
  const nlohmann::json& value(const std::string& key) const;  // a missing key is an error

  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) const;
  std::int64_t integer_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                          std::int64_t max) const;
  bool boolean(const std::string& key) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  double number_or(const std::string& key, double fallback) const;
  // A number above 0; a missing one, another type or one at or below 0 is an error naming the key.
  double positive_number(const std::string& key) const;
  std::string string(const std::string& key) const;
  // A name the tool prints: a non-empty string of printable UTF-8 (core/printable.hpp).
  std::string name(const std::string& key) const;
  // A string that must be one of `allowed` (the message lists them).
  std::string choice(const std::string& key, const std::vector<std::string>& allowed) const;
  // The object under `key`; `field` is how its keys are named in errors (default: prefix + key + ".").
  JsonObjectReader object(const std::string& key) const;
  // The size of the list under `key`, and a reader for its object at `index` (field "key[index].").
  std::size_t list_size(const std::string& key) const;
  JsonObjectReader list_object(const std::string& key, std::size_t index) const;

  // Every key must be in `known`; the first other key fails with `message`.
  void reject_unknown(const std::set<std::string>& known, const std::string& message) const;
  const nlohmann::json& json() const { return json_; }

 private:
  std::int64_t integer_value(const std::string& key, std::int64_t min, std::int64_t max) const;
  std::string child(const std::string& key) const;

  const JsonDocument& document_;
  const nlohmann::json& json_;
  std::string pointer_;
  std::string field_prefix_;
  std::string missing_hint_;
};

}  // namespace shardscope
