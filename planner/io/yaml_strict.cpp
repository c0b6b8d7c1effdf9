// check_strict_yaml: a yaml-cpp event handler that tracks each mapping's keys (with lines) and documents.
#include "planner/io/yaml_strict.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/io/input_limits.hpp"

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
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { (void)begin_node(mark, std::nullopt); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { (void)begin_node(mark, std::nullopt); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    (void)begin_node(mark, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    stack_.push_back({false, begin_node(mark, std::nullopt)});
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    stack_.push_back({true, begin_node(mark, std::nullopt)});
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

  // Called for every node as it starts: checks a mapping key against its siblings and returns the node's
  // field path.
  std::string begin_node(const YAML::Mark& mark, const std::optional<std::string>& scalar) {
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
    top.key = scalar.value_or("?");
    if (scalar) {
      const auto [it, inserted] = top.key_lines.emplace(*scalar, line_of(mark));
      if (!inserted) {
        throw InputError(file_, line_of(mark), join(top.path, *scalar),
                         "duplicate key (first given at line " + std::to_string(it->second) + ")");
      }
    }
    return top.path;  // a key that is itself a list or mapping (rare; never valid in our files)
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
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
}

}  // namespace shardscope
