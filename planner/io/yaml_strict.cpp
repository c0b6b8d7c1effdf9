// check_strict_yaml: a yaml-cpp event handler that tracks each mapping's keys (with lines) and documents.
#include "planner/io/yaml_strict.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/io/input_limits.hpp"
#include "planner/io/internal/yaml_reader.hpp"

namespace shardscope {
namespace {

int line_of(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 0; }

class StrictHandler : public YAML::EventHandler {
 public:
  explicit StrictHandler(const std::string& file) : file_(file) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      throw InputError(file_, line_of(mark), "",
                       "a second YAML document starts here; expected one document per file (remove this "
                       "'---' and what follows, or split the file)");
    }
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    (void)begin_node(mark, std::nullopt, "null");
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    (void)begin_node(mark, std::nullopt, "an alias");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    (void)begin_node(mark, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    open(mark, false);
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    open(mark, true);
  }
  void OnMapEnd() override { stack_.pop_back(); }

 private:
  struct Frame {
    bool map;
    std::string path;  // dotted field path of this container ("" for the root)
    std::map<std::string, int> key_lines = {};
    bool expecting_key = true;
    std::string key = {};   // the key whose value comes next (maps)
    std::size_t index = 0;  // the next item's index (sequences)
  };

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // A list or mapping starts: refuses nesting deeper than kMaxNestingDepth at its line.
  void open(const YAML::Mark& mark, bool map) {
    const std::string path = begin_node(mark, std::nullopt, map ? "a mapping" : "a list");
    if (static_cast<int>(stack_.size()) >= kMaxNestingDepth) {
      // Named by its key, without the run of list indexes below it ("a.b", not "a.b[0][0][0]...").
      std::string field = path;
      while (!field.empty() && field.back() == ']') field.erase(field.rfind('['));
      throw InputError(file_, line_of(mark), field,
                       "nesting too deep: more than " + std::to_string(kMaxNestingDepth) +
                           " levels of lists and mappings inside each other");
    }
    stack_.push_back({map, path});
  }

  // Called for every node as it starts (`scalar`: its text when it is a scalar; `kind`: what it is, for
  // errors): checks a mapping key — a plain name, not given before in its mapping — and returns the node's
  // field path.
  std::string begin_node(const YAML::Mark& mark, const std::optional<std::string>& scalar,
                         const char* kind = "null") {
    if (++nodes_ > kMaxInputNodes) {
      throw InputError(file_, line_of(mark), stack_.empty() ? "" : stack_.back().path,
                       "more than " + std::to_string(kMaxInputNodes) +
                           " YAML nodes (keys, values and list items), the limit for an input file");
    }
    if (stack_.empty()) return "";
    Frame& top = stack_.back();
    if (!top.map) return top.path + "[" + std::to_string(top.index++) + "]";
    if (!top.expecting_key) {
      top.expecting_key = true;
      return join(top.path, top.key);
    }
    top.expecting_key = false;
    if (!scalar || scalar->empty()) {
      throw InputError(file_, line_of(mark), top.path,
                       std::string("expected a key that is a plain name such as memory_limit, got ") +
                           (scalar ? "an empty key" : kind));
    }
    top.key = *scalar;
    const auto [it, inserted] = top.key_lines.emplace(*scalar, line_of(mark));
    if (!inserted) {
      throw InputError(file_, line_of(mark), join(top.path, *scalar),
                       "duplicate key (first given at line " + std::to_string(it->second) + ")");
    }
    return top.path;
  }

  const std::string& file_;
  int documents_ = 0;
  std::size_t nodes_ = 0;
  std::vector<Frame> stack_;
};

}  // namespace

void check_strict_yaml(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StrictHandler handler(file);
  try {
    while (parser.HandleNextDocument(handler)) {
    }
  } catch (const YAML::DeepRecursion& e) {  // not reached below kMaxNestingDepth; kept as a backstop
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                     "nesting too deep: more than " + std::to_string(kMaxNestingDepth) +
                         " levels of lists and mappings inside each other");
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
}

}  // namespace shardscope
