// Files of the sweep tests: a fresh temporary path (nothing there yet) and a results file's JSON rows.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope::test {

// A path in the temporary folder, named after `name`, with no file at it.
inline std::string temp_path(const std::string& name) {
  const std::string path = write_temp(name, "");
  std::filesystem::remove(path);
  return path;
}

// One JSON value per line of the results file at `path`.
inline std::vector<nlohmann::json> rows_of(const std::string& path) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

}  // namespace shardscope::test
