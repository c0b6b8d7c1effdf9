// SimulationRunner implementations: in this process, and in a spawned `shardscope simulate` child with a
// timeout whose full result comes back as JSON.
#include "sim/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/plan_json.hpp"
#include "sim/result_json.hpp"
#include "sim/simulation_error.hpp"

extern char** environ;

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

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// The command line for `job`; rejects options that the command line cannot carry exactly.
std::vector<std::string> child_arguments(const std::string& binary, const SimulationJob& job,
                                         const std::string& plan_path, const std::string& result_path) {
  const IterationOptions& o = job.options;
  if (o.prefetch_depth < 0) {
    throw InputError("simulation job", 0, "options.prefetch_depth",
                     "expected 0 or more, got " + std::to_string(o.prefetch_depth));
  }
  if (o.trace_ranks < 0 || o.coarse_above < 0) {
    throw InputError("simulation job", 0, o.trace_ranks < 0 ? "options.trace_ranks" : "options.coarse_above",
                     "expected 0 or more");
  }
  if (!(o.bucket_bytes >= 0 && o.bucket_bytes <= 4.6e18) || o.bucket_bytes != std::floor(o.bucket_bytes)) {
    throw InputError("simulation job", 0, "options.bucket_bytes",
                     "expected a whole number of bytes, got " + format_number(o.bucket_bytes));
  }
  if (o.max_activities != IterationOptions{}.max_activities ||
      o.steady_state_proof_steps != IterationOptions{}.steady_state_proof_steps) {
    throw InputError("simulation job", 0,
                     o.max_activities != IterationOptions{}.max_activities
                         ? "options.max_activities"
                         : "options.steady_state_proof_steps",
                     "a child simulation runs with the default (the command line does not carry it)");
  }
  std::vector<std::string> args = {binary,
                                   "simulate",
                                   job.scenario_file,
                                   "--plan",
                                   plan_path,
                                   "--result-json",
                                   result_path,
                                   "--prefetch",
                                   std::to_string(o.prefetch_depth),
                                   "--trace-ranks",
                                   std::to_string(o.trace_ranks),
                                   "--coarse-above",
                                   std::to_string(o.coarse_above)};
  args.emplace_back(o.overlap ? "--overlap" : "--serial");  // explicit: the scenario may say otherwise
  // The plan's own collectives, whatever the scenario file says (plan --collectives may have overridden it).
  args.emplace_back("--collectives");
  args.emplace_back(to_string(job.plan.collectives));
  if (!o.steady_state) args.emplace_back("--every-step");
  if (o.bucket_bytes > 0) {
    args.emplace_back("--bucket");
    args.push_back(std::to_string(static_cast<std::int64_t>(o.bucket_bytes)));
  }
  if (!job.calibration_file.empty()) {
    args.emplace_back("--calibration");
    args.push_back(job.calibration_file);
  }
  return args;
}

pid_t spawn(const std::vector<std::string>& args, const std::string& stderr_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<std::string> storage = args;
  std::vector<char*> argv;
  for (std::string& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, args.front().c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw SimulationError("cannot start the simulation process " + args.front() + ": " + std::strerror(rc));
  }
  return pid;
}

// Polls for the child's exit; at the timeout kills it and throws. Returns the wait status.
int wait_for_exit(pid_t pid, double timeout_seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  std::chrono::milliseconds pause(1);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) {
      throw SimulationError("cannot wait for the simulation process: " + std::string(std::strerror(errno)));
    }
    if (timeout_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() >= timeout_seconds) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw SimulationError("the simulation process timed out after " + format_number(timeout_seconds) +
                            " s and was killed");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

// The child's error message: its stderr without the "error: " prefix and trailing white space.
std::string child_message(const std::string& stderr_path) {
  std::ifstream in(stderr_path);
  std::stringstream text;
  text << in.rdbuf();
  std::string message = text.str();
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
  if (message.rfind("error: ", 0) == 0) message.erase(0, 7);
  return message;
}

// Rebuilds the child's InputError from its "file[:line]: message" text (what() is unchanged); the
// temporary plan file is named as the job's plan.
InputError child_input_error(const std::string& message, const SimulationJob& job,
                             const std::string& plan_path) {
  const std::size_t colon = message.find(": ");
  if (colon == std::string::npos) return InputError(job.scenario_file, 0, "", message);
  std::string file = message.substr(0, colon);
  int line = 0;
  const std::size_t last = file.rfind(':');
  if (last != std::string::npos && last + 1 < file.size() &&
      std::all_of(file.begin() + static_cast<std::ptrdiff_t>(last) + 1, file.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    line = std::stoi(file.substr(last + 1));
    file.resize(last);
  }
  if (file == plan_path) file = "plan '" + job.plan.strategy + "'";
  return InputError(file, line, "", message.substr(colon + 2));
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
  const std::string stderr_path = directory.file("stderr.txt");
  const std::vector<std::string> args = child_arguments(binary_, job, plan_path, result_path);
  {
    std::ofstream plan_file(plan_path);
    plan_file << plan_json_text(job.plan) << "\n";
    if (!plan_file) throw SimulationError("cannot write the plan file " + plan_path);
  }
  const int status = wait_for_exit(spawn(args, stderr_path), job.timeout_seconds);
  const std::string message = child_message(stderr_path);
  const std::string detail = message.empty() ? "no error message" : message;
  if (WIFSIGNALED(status)) {
    throw SimulationError("the simulation process died of signal " + std::to_string(WTERMSIG(status)) + ": " +
                          detail);
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 2) throw child_input_error(detail, job, plan_path);
  if (code != 0) {
    throw SimulationError("the simulation process failed (exit status " + std::to_string(code) +
                          "): " + detail);
  }
  if (!std::filesystem::exists(result_path)) {
    throw SimulationError("the simulation process exited without writing its result " + result_path);
  }
  return load_result_file(result_path);
}

}  // namespace shardscope::sim
