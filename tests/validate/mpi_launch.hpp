// Test helper: runs shardscope-validate under mpirun (as root too: it sets Open MPI's consent) and returns
// its exit code, its output and how long it took.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace shardscope::validate {

struct Launch {
  int exit_code = -1;
  std::string output;
  double seconds = 0;
};

// Runs `command` through the shell, its output (stdout and stderr) into `log_name` (prefixed with the process
// id: tests of several executables run at once under ctest -j) in the test's temporary directory.
inline Launch run_logged(const std::string& command, const std::string& log_name) {
  const std::string log = ::testing::TempDir() + std::to_string(::getpid()) + "_" + log_name;
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system((command + " > " + log + " 2>&1").c_str());
  Launch out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  out.output = text.str();
  return out;
}

// `mpiexec -n ranks --oversubscribe binary arguments`.
inline Launch launch_under_mpi(const std::string& mpiexec, const std::string& binary, int ranks,
                               const std::string& arguments, const std::string& log_name) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  return run_logged(mpiexec + " -n " + std::to_string(ranks) + " --oversubscribe " + binary + " " + arguments,
                    log_name);
}

// `binary arguments` as a plain process (no mpirun: shardscope-validate --no-mpi).
inline Launch launch_alone(const std::string& binary, const std::string& arguments,
                           const std::string& log_name) {
  return run_logged(binary + " " + arguments, log_name);
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace shardscope::validate
