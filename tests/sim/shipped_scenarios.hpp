// The shipped scenarios (scenarios/*.yaml) for parameterised simulator tests: their file names, and a
// scenario's text shrunk to 4 nodes past 32 GPUs (the 128-GPU scenario simulates in minutes otherwise).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "planner/io/scenario_parser.hpp"

namespace shardscope::sim::test {

inline const std::string kScenarios = std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios";

// Every shipped scenario's file name, sorted.
inline std::vector<std::string> shipped_scenario_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(kScenarios)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The scenario's text, its cluster on 4 nodes when it has more than 32 GPUs.
inline std::string small_scenario(const std::string& file) {
  std::ifstream in(kScenarios + "/" + file);
  std::stringstream text;
  text << in.rdbuf();
  if (load_scenario_file(kScenarios + "/" + file).cluster.gpus() <= 32) return text.str();
  return std::regex_replace(text.str(), std::regex("nodes: [0-9]+"), "nodes: 4");
}

// A gtest parameter name from text: every character but letters and digits as '_'.
inline std::string test_name(std::string name) {
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace shardscope::sim::test
