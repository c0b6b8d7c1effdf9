// JsonDocument (parse, map every value's JSON pointer to its line, refuse duplicate keys) and
// JsonObjectReader.
#include "planner/io/internal/json_reader.hpp"

#include <algorithm>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/names.hpp"
#include "planner/core/printable.hpp"
#include "planner/io/input_limits.hpp"

namespace shardscope {
namespace {

using Json = nlohmann::json;

int line_at(const std::string& text, std::size_t byte) {
  byte = std::min(byte, text.size());
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

std::string pointer_token(const std::string& key) {
  std::string out;
  for (const char ch : key) {
    if (ch == '~') {
      out += "~0";
    } else if (ch == '/') {
      out += "~1";
    } else {
      out += ch;
    }
  }
  return out;
}

void append_utf8(std::string& out, unsigned code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// Walks text that nlohmann has already accepted and records the line of each value by JSON pointer
// (object members at their key). A key given twice in one object (nlohmann keeps the last) is an InputError
// naming both lines. Iterative, so deep nesting cannot overflow the stack.
class LineScanner {
 public:
  LineScanner(const std::string& text, const std::string& file, std::map<std::string, int>& lines)
      : text_(text), file_(file), lines_(lines) {}

  void scan() {
    struct Frame {
      std::string pointer;
      std::string field;  // dotted, for errors: "plan.operators[3]"
      bool array;
      std::size_t index;
    };
    std::vector<Frame> stack;
    skip_space();
    std::string pointer;
    std::string field;
    lines_[pointer] = line_;
    while (true) {
      // A value starts at pos_ for `pointer`.
      skip_space();
      if (pos_ >= text_.size()) return;
      const char ch = text_[pos_];
      bool opened = false;
      if (ch == '{' || ch == '[') {
        ++pos_;
        stack.push_back({pointer, field, ch == '[', 0});
        opened = true;
      } else if (ch == '"') {
        (void)string_token();
      } else {
        while (pos_ < text_.size() && std::string_view(",}] \t\r\n").find(text_[pos_]) == std::string::npos) {
          ++pos_;
        }
      }
      // Find the next value to visit: the first member of a container just opened, or the next sibling.
      bool next = false;
      while (!next) {
        if (stack.empty()) return;
        skip_space();
        if (pos_ >= text_.size()) return;
        Frame& top = stack.back();
        const char c = text_[pos_];
        if (c == '}' || c == ']') {
          ++pos_;
          stack.pop_back();
          opened = false;
          continue;
        }
        if (!opened) {
          if (c != ',') return;  // not reached for text nlohmann accepted
          ++pos_;
          skip_space();
          ++top.index;
        }
        opened = false;
        if (top.array) {
          pointer = top.pointer + "/" + std::to_string(top.index);
          field = top.field + "[" + std::to_string(top.index) + "]";
          lines_[pointer] = line_;
        } else {
          const int key_line = line_;
          const std::string key = string_token();
          pointer = top.pointer + "/" + pointer_token(key);
          field = top.field.empty() ? key : top.field + "." + key;
          const auto [it, inserted] = lines_.emplace(pointer, key_line);
          if (!inserted) {
            throw InputError(file_, key_line, field,
                             "duplicate key (first given at line " + std::to_string(it->second) + ")");
          }
          skip_space();
          if (pos_ < text_.size() && text_[pos_] == ':') ++pos_;
        }
        next = true;
      }
    }
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::string_view(" \t\r\n").find(text_[pos_]) != std::string::npos) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  // At an opening quote: returns the decoded string and moves past the closing quote.
  std::string string_token() {
    std::string out;
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
        const char e = text_[pos_ + 1];
        pos_ += 2;
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'u':
            if (pos_ + 4 <= text_.size()) {
              append_utf8(out, static_cast<unsigned>(std::stoul(text_.substr(pos_, 4), nullptr, 16)));
              pos_ += 4;
            }
            break;
          default:
            out += e;
        }
        continue;
      }
      out += text_[pos_++];
    }
    ++pos_;
    return out;
  }

  const std::string& text_;
  const std::string& file_;
  std::map<std::string, int>& lines_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

// Refuses arrays and objects nested deeper than kMaxNestingDepth, at the line of the bracket that goes too
// deep, before anything is parsed (so malformed deep text says so too). Strings are skipped.
void check_nesting(const std::string& text, const std::string& file, int first_line = 1) {
  int depth = 0;
  int line = first_line;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '\n') ++line;
    if (in_string) {
      if (ch == '\\') {
        ++i;  // an escaped character, never a newline in valid JSON
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxNestingDepth) {
        throw InputError(file, line, "",
                         "nesting too deep: more than " + std::to_string(kMaxNestingDepth) +
                             " levels of arrays and objects inside each other");
      }
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
}

}  // namespace

void check_json_nesting(const std::string& text, const std::string& file, int first_line) {
  check_nesting(text, file, first_line);
}

namespace {

const Json& value_at(const JsonDocument& document, const std::string& pointer, const std::string& field) {
  const Json::json_pointer where(pointer);
  if (!document.root().contains(where) || !document.root().at(where).is_object()) {
    throw InputError(document.file(), document.line(pointer), field, "expected an object");
  }
  return document.root().at(where);
}

std::string without_dot(const std::string& prefix) {
  return !prefix.empty() && prefix.back() == '.' ? prefix.substr(0, prefix.size() - 1) : prefix;
}

}  // namespace

JsonDocument::JsonDocument(const std::string& text, std::string file) : file_(std::move(file)) {
  check_nesting(text, file_);
  // Values are counted as the parser meets them, so a huge list stops at the limit instead of filling memory
  // (with the line map below, a value costs a few hundred bytes).
  std::size_t values = 0;
  const Json::parser_callback_t count = [&](int, Json::parse_event_t event, Json&) {
    if (event == Json::parse_event_t::value || event == Json::parse_event_t::object_start ||
        event == Json::parse_event_t::array_start) {
      if (++values > kMaxInputNodes) {
        throw InputError(file_, 0, "",
                         "more than " + std::to_string(kMaxInputNodes) +
                             " JSON values (objects, lists and their members), the limit for an input file");
      }
    }
    return true;
  };
  try {
    json_ = Json::parse(text, count);
  } catch (const Json::parse_error& e) {
    throw InputError(file_, line_at(text, e.byte > 0 ? e.byte - 1 : 0), "",
                     std::string("malformed JSON: ") + e.what());
  } catch (const Json::exception& e) {
    // e.g. out_of_range for a number such as 1e999 that no double can hold (found by the fuzzer); the
    // message quotes the number ("number overflow parsing '1e999'"): its first appearance gives the line.
    const std::string what = e.what();
    const std::size_t open = what.find('\'');
    const std::size_t close = open == std::string::npos ? open : what.find('\'', open + 1);
    const std::size_t at =
        close == std::string::npos ? close : text.find(what.substr(open + 1, close - open - 1));
    throw InputError(file_, at == std::string::npos ? 0 : line_at(text, at), "", "malformed JSON: " + what);
  }
  LineScanner(text, file_, lines_).scan();
}

int JsonDocument::line(const std::string& pointer) const {
  const auto it = lines_.find(pointer);
  return it == lines_.end() ? 0 : it->second;
}

JsonObjectReader::JsonObjectReader(const JsonDocument& document, std::string pointer,
                                   std::string field_prefix, std::string missing_hint)
    : document_(document),
      json_(value_at(document, pointer, without_dot(field_prefix))),
      pointer_(std::move(pointer)),
      field_prefix_(std::move(field_prefix)),
      missing_hint_(std::move(missing_hint)) {}

std::string JsonObjectReader::child(const std::string& key) const {
  return pointer_ + "/" + pointer_token(key);
}

int JsonObjectReader::line(const std::string& key) const {
  const int at = document_.line(child(key));
  if (at > 0 || pointer_.empty()) return at;  // a key missing from the root: the whole file (line 0)
  return document_.line(pointer_);
}

void JsonObjectReader::fail(const std::string& key, const std::string& message) const {
  throw InputError(document_.file(), line(key), field_prefix_ + key, message);
}

bool JsonObjectReader::has(const std::string& key) const {
  return json_.contains(key) && !json_.at(key).is_null();
}

const Json& JsonObjectReader::value(const std::string& key) const {
  if (!has(key)) fail(key, "missing" + missing_hint_);
  return json_.at(key);
}

std::int64_t JsonObjectReader::integer(const std::string& key, std::int64_t min, std::int64_t max) const {
  (void)value(key);
  return integer_value(key, min, max);
}

std::int64_t JsonObjectReader::integer_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                                          std::int64_t max) const {
  return has(key) ? integer_value(key, min, max) : fallback;
}

bool JsonObjectReader::boolean(const std::string& key) const {
  const Json& v = value(key);
  if (!v.is_boolean()) fail(key, "expected true or false");
  return v.get<bool>();
}

bool JsonObjectReader::boolean_or(const std::string& key, bool fallback) const {
  return has(key) ? boolean(key) : fallback;
}

double JsonObjectReader::number_or(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  if (!json_.at(key).is_number()) fail(key, "expected a number");
  return json_.at(key).get<double>();
}

double JsonObjectReader::positive_number(const std::string& key) const {
  const double v = number_or(key, -1);
  if (!(v > 0)) fail(key, "expected a positive number");
  return v;
}

std::string JsonObjectReader::string(const std::string& key) const {
  const Json& v = value(key);
  if (!v.is_string()) fail(key, "expected a string");
  return v.get<std::string>();
}

std::string JsonObjectReader::name(const std::string& key) const {
  std::string s = string(key);
  if (s.empty()) fail(key, "expected a non-empty name");
  if (const std::optional<std::string> reason = unprintable_reason(s)) {
    fail(key, "expected a printable name, got '" + escape_unprintable(s) + "', which " + *reason);
  }
  return s;
}

std::string JsonObjectReader::choice(const std::string& key, const std::vector<std::string>& allowed) const {
  const std::string expected = "expected one of " + join(allowed, ", ");
  const Json& v = value(key);
  if (!v.is_string()) fail(key, expected);
  const std::string s = v.get<std::string>();
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
    // One-letter names (scopes) are all one edit apart: a suggestion would be noise.
    const std::optional<std::string> near = s.size() > 1 ? nearest_name(s, allowed) : std::nullopt;
    fail(key, expected + ", got '" + s + "'" + (near ? "; did you mean '" + *near + "'?" : ""));
  }
  return s;
}

JsonObjectReader JsonObjectReader::object(const std::string& key) const {
  (void)value(key);
  return JsonObjectReader(document_, child(key), field_prefix_ + key + ".", missing_hint_);
}

std::size_t JsonObjectReader::list_size(const std::string& key) const {
  const Json& v = value(key);
  if (!v.is_array()) fail(key, "expected a list");
  return v.size();
}

JsonObjectReader JsonObjectReader::list_object(const std::string& key, std::size_t index) const {
  return JsonObjectReader(document_, child(key) + "/" + std::to_string(index),
                          field_prefix_ + key + "[" + std::to_string(index) + "].", missing_hint_);
}

void JsonObjectReader::reject_unknown(const std::set<std::string>& known, const std::string& message) const {
  for (auto it = json_.begin(); it != json_.end(); ++it) {
    if (known.count(it.key()) == 0) fail(it.key(), message);
  }
}

std::int64_t JsonObjectReader::integer_value(const std::string& key, std::int64_t min,
                                             std::int64_t max) const {
  const Json& v = json_.at(key);
  if (!v.is_number_integer()) fail(key, "expected an integer");
  const bool is_unsigned = v.is_number_unsigned();
  if (is_unsigned && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
    fail(key, "expected an integer between " + std::to_string(min) + " and " + std::to_string(max));
  }
  const std::int64_t value =
      is_unsigned ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
  if (value < min || value > max) {
    fail(key, "expected an integer between " + std::to_string(min) + " and " + std::to_string(max) +
                  ", got " + std::to_string(value));
  }
  return value;
}

}  // namespace shardscope
