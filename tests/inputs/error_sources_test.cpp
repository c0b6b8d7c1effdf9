// Errors point at their real source (issue 9, finding 13): the HF config's key, the line of a bad key or
// of nesting too deep, and what is wrong with a path (a symbolic link loop, an empty path).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "planner/io/hf_config.hpp"
#include "planner/io/internal/json_reader.hpp"
#include "planner/io/internal/yaml_reader.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/plan_json.hpp"
#include "test_util.hpp"

namespace shardscope {
namespace {

namespace fs = std::filesystem;
using test::expect_input_error;

// A fresh directory under the system's temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir()
      : path_(fs::temp_directory_path() / ("shardscope_sources_" + std::to_string(::getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

const char* kLlama =
    "{\n"
    "  \"model_type\": \"llama\",\n"
    "  \"hidden_size\": 4096,\n"
    "  \"intermediate_size\": 11008,\n"
    "  \"num_hidden_layers\": 4,\n"
    "  \"num_attention_heads\": HEADS,\n"
    "  \"num_key_value_heads\": KV,\n"
    "  \"vocab_size\": 32000,\n"
    "  \"max_position_embeddings\": 4096\n"
    "}\n";

std::string llama(const std::string& heads, const std::string& kv) {
  std::string text = kLlama;
  text.replace(text.find("HEADS"), 5, heads);
  text.replace(text.find("KV"), 2, kv);
  return text;
}

TEST(ErrorSources, AnHfConfigTheGeneratorRefusesNamesTheJsonKeyNotTheScenario) {
  const TempDir dir;
  const std::string config = dir.file("config.json", llama("30", "30"));
  const std::string scenario = dir.file(
      "s.yaml",
      "model: {hf_config: config.json, sequence_length: 1024}\ncluster: {preset: titan-rtx-8-pcie3}\n");
  expect_input_error([&] { load_scenario_file(scenario); }, config, 6, "num_attention_heads",
                     "hidden size 4096 must be a multiple of heads (30)");
  dir.file("config.json", llama("32", "5"));
  expect_input_error([&] { load_scenario_file(scenario); }, config, 7, "num_key_value_heads",
                     "kv_heads (5) must divide heads (32)");
  // A mixture of experts whose totals pass 2^63: the config's layer count, not the scenario's model line.
  std::string huge = llama("32", "32");
  huge.replace(huge.find("\"model_type\": \"llama\""), 21,
               "\"model_type\": \"mixtral\", \"num_local_experts\": 4096, \"num_experts_per_tok\": 2");
  huge.replace(huge.find("4096,\n  \"intermediate"), 4, "1048576");
  huge.replace(huge.find("11008"), 5, "16777216");
  huge.replace(huge.find("\"num_hidden_layers\": 4"), 22, "\"num_hidden_layers\": 100000");
  dir.file("config.json", huge);
  expect_input_error([&] { load_scenario_file(scenario); }, config, 5, "num_hidden_layers",
                     "overflow 64-bit integers");
}

TEST(ErrorSources, NestingTooDeepSaysSoWithTheLimitAndLine) {
  std::string yaml = "model:\n  x: ";
  for (int i = 0; i < 100; ++i) yaml += "[";
  for (int i = 0; i < 100; ++i) yaml += "]";
  expect_input_error([&] { parse_yaml_mapping(yaml, "s.yaml"); }, "s.yaml", 2, "model.x",
                     "nesting too deep: more than 64 levels of lists and mappings");
  std::string ok = "a: ";
  for (int i = 0; i < 63; ++i) ok += "[";
  for (int i = 0; i < 63; ++i) ok += "]";
  EXPECT_NO_THROW(parse_yaml_mapping(ok + "\n", "s.yaml"));  // 64 levels with the root mapping
  // JSON: a 100,000-deep array took 22 GB and six minutes before the limit; malformed or not, it is refused.
  std::string json = "{\n\"model_type\": \"llama\",\n\"x\": ";
  for (int i = 0; i < 100000; ++i) json += "[";
  for (int i = 0; i < 100000; ++i) json += "]";
  json += "}";
  expect_input_error([&] { parse_hf_config_string(json, "c.json"); }, "c.json", 3, "",
                     "nesting too deep: more than 64 levels of arrays and objects");
  expect_input_error([&] { JsonDocument(std::string(100000, '['), "p.json"); }, "p.json", 1, "",
                     "nesting too deep");
  EXPECT_NO_THROW(JsonDocument(std::string(64, '[') + std::string(64, ']'), "p.json"));
  expect_input_error(
      [&] { JsonDocument("[\"[[[[\", " + std::string(65, '[') + std::string(65, ']') + "]", "p.json"); },
      "p.json", 1, "", "nesting too deep");
}

TEST(ErrorSources, KeysThatAreNotPlainNamesAreRefusedAtTheirLine) {
  const std::string head = "model: {preset: nd-48x1536}\ncluster:\n  preset: titan-rtx-8-pcie3\n";
  expect_input_error([&] { parse_scenario_string(head + "  ? [gpu, nodes]\n  : 3\n", "s.yaml"); }, "s.yaml",
                     4, "cluster", "expected a key that is a plain name such as memory_limit, got a list");
  expect_input_error([&] { parse_scenario_string(head + "training:\n  ? {a: 1}\n  : 3\n", "s.yaml"); },
                     "s.yaml", 5, "training", "got a mapping");
  expect_input_error([&] { parse_scenario_string(head + "training:\n  ~: 3\n", "s.yaml"); }, "s.yaml", 5,
                     "training", "got null");
  expect_input_error([&] { parse_scenario_string(head + "training:\n  \"\": 3\n", "s.yaml"); }, "s.yaml", 5,
                     "training", "got an empty key");
  expect_input_error([&] { parse_scenario_string("a: &x 1\n*x : 2\n", "s.yaml"); }, "s.yaml", 2, "",
                     "got an alias");
}

TEST(ErrorSources, APathThatCannotBeReadSaysWhy) {
  const TempDir dir;
  const std::string loop = dir.path("loop.yaml");
  fs::create_symlink(loop, loop);
  expect_input_error([&] { load_scenario_file(loop); }, loop, 0, "",
                     "cannot open scenario: a symbolic link loop (too many levels of symbolic links)");
  const std::string dangling = dir.path("dangling.json");
  fs::create_symlink(dir.path("missing.json"), dangling);
  expect_input_error([&] { load_hf_config_file(dangling); }, dangling, 0, "",
                     "a symbolic link to a file that does not exist");
  expect_input_error([&] { load_scenario_file(""); }, "<empty path>", 0, "",
                     "the path is empty; expected the path of a scenario file");
  const std::string file = dir.file("f.yaml", "a: 1\n");
  expect_input_error([&] { load_scenario_file(file + "/x.yaml"); }, file + "/x.yaml", 0, "",
                     "cannot open scenario: a part of the path is not a directory");
}

TEST(ErrorSources, AJsonNumberBeyondRangeNamesItsLine) {
  expect_input_error([] { JsonDocument("{\n\"a\": 1,\n\"b\": 1e999\n}", "p.json"); }, "p.json", 3, "",
                     "malformed JSON");
}

}  // namespace
}  // namespace shardscope
