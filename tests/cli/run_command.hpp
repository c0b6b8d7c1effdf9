// run_command: runs a shell command and captures its exit status, stdout and stderr (for CLI tests).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/sanitizer_noise.hpp"

namespace shardscope::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline CommandResult run_command(const std::string& command) {
  const auto err_path =
      std::filesystem::temp_directory_path() / ("shardscope_cli_err_" + std::to_string(::getpid()) + ".txt");
  const std::string full = command + " 2>" + err_path.string() + " </dev/null";
  CommandResult result;
  FILE* pipe = ::popen(full.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err_file(err_path);
  std::stringstream err;
  err << err_file.rdbuf();
  result.err = without_sanitizer_noise(err.str());
  std::filesystem::remove(err_path);
  return result;
}

// Writes `text` to a file in the temporary directory whose name carries this process's id; returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / ("shardscope_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace shardscope::test
