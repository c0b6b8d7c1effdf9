// SimulationRunner implementations: in this process, and in a spawned `shardscope simulate` child with a
// timeout whose full result comes back as JSON.
#include "sim/runner.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "exchange/child_protocol.hpp"
#include "exchange/result_json.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/plan_json.hpp"
#include "process/subprocess.hpp"
#include "sim/iteration_sim.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

// A private directory for one job's files; removed with its contents.
class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "shardscope-run-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw SimulationError("cannot create a temporary directory: " + std::string(std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  std::string file(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Runs the child to its end: standard output discarded, standard error kept, killed at the timeout.
process::ExitStatus run_child(const std::vector<std::string>& args, double timeout_seconds,
                              std::string& errors) {
  process::SpawnRequest request;
  request.argv = args;
  request.stderr_to = process::Output::pipe();
  request.timeout_seconds = timeout_seconds;
  std::unique_ptr<process::Subprocess> child;
  try {
    child = std::make_unique<process::Subprocess>(std::move(request));
  } catch (const process::ProcessError& e) {
    throw SimulationError("cannot start the simulation process " + args.front() + ": " +
                          std::strerror(e.error_number()));
  }
  try {
    const process::ExitStatus status = child->wait();
    errors = child->errors();
    return status;
  } catch (const process::ProcessError& e) {
    throw SimulationError("cannot wait for the simulation process: " +
                          std::string(std::strerror(e.error_number())));
  }
}

}  // namespace

IterationResult InProcessRunner::run(const SimulationJob& job) {
  Scenario scenario = load_scenario_file(job.scenario_file);
  if (!job.calibration_file.empty()) scenario.planner.calibration_file = job.calibration_file;
  const Calibration calibration = scenario_calibration(scenario);
  return simulate_iteration(ValidScenario(std::move(scenario)), calibration, job.plan, job.options);
}

ChildProcessRunner::ChildProcessRunner(std::string shardscope_binary)
    : binary_(std::move(shardscope_binary)) {}

IterationResult ChildProcessRunner::run(const SimulationJob& job) {
  const TempDirectory directory;
  const std::string plan_path = directory.file("plan.json");
  const std::string result_path = directory.file("result.json");
  const std::vector<std::string> args = simulate_child_arguments(binary_, job, plan_path, result_path);
  {
    std::ofstream plan_file(plan_path);
    plan_file << plan_json_text(job.plan) << "\n";
    if (!plan_file) throw SimulationError("cannot write the plan file " + plan_path);
  }
  std::string errors;
  const process::ExitStatus status = run_child(args, job.timeout_seconds, errors);
  if (status.how == process::ExitStatus::How::timed_out) {
    throw SimulationError("the simulation process timed out after " +
                          units::format_general(job.timeout_seconds) + " s and was killed");
  }
  const std::string message = child_error_message(errors);
  const std::string detail = message.empty() ? "no error message" : message;
  if (status.how == process::ExitStatus::How::signalled) {
    throw SimulationError("the simulation process died of signal " + std::to_string(status.signal) + ": " +
                          detail);
  }
  if (status.code == kChildInputErrorExitStatus) throw child_input_error(detail, job, plan_path);
  if (status.code != 0) {
    throw SimulationError("the simulation process failed (exit status " + std::to_string(status.code) +
                          "): " + detail);
  }
  if (!std::filesystem::exists(result_path)) {
    throw SimulationError("the simulation process exited without writing its result " + result_path);
  }
  return load_result_file(result_path);
}

}  // namespace shardscope::sim
