// Sweep child processes: posix_spawn of `shardscope sweep-point` in a process group of its own, polled
// for its exit, killed with its group at the timeout; each end becomes a row.
#include "apps/shardscope/sweep_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "apps/shardscope/exit_status.hpp"

extern char** environ;

namespace shardscope::cli {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The child's error message: its stderr's last non-empty lines without "error: " (progress lines are off).
std::string child_message(const std::string& err) {
  std::string message = err;
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
  if (message.rfind("error: ", 0) == 0) message.erase(0, 7);
  if (message.size() > 2000) message = "..." + message.substr(message.size() - 2000);
  return message;
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace

std::string self_executable() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("shardscope") : self.string();
}

std::string sibling_executable(const std::string& name) {
  return (std::filesystem::path(self_executable()).parent_path() / name).string();
}

Json sweep_row(const SweepTask& task, const SweepRunOptions& options, const std::string& status,
               const Json& metrics, const std::string& error, double wall_seconds) {
  Json row;
  row["point"] = task.id;
  row["index"] = task.index;
  row["grid"] = options.grid_name;
  Json axes = Json::object();
  for (const auto& [path, value] : task.axes) axes[path] = value;
  row["axes"] = axes;
  row["version"] = tool_version();
  row["revision"] = git_revision();
  row["simulated"] = options.simulate;
  row["status"] = status;
  if (status == "error") row["error"] = error;
  if (!metrics.is_null()) row["metrics"] = metrics;  // an error row keeps what its point did measure
  row["wall_seconds"] = wall_seconds;
  return row;
}

// Below Linux's limit on one argument's length (MAX_ARG_STRLEN, 32 pages: 128 KiB).
constexpr std::size_t kMaxValuesArgumentBytes = 64 * 1024;

ChildPool::ChildPool(SweepRunOptions options) : options_(std::move(options)) {
  if (options_.jobs < 1) options_.jobs = 1;
  std::string pattern = (std::filesystem::temp_directory_path() / "shardscope-sweep-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw OutputError("cannot create a temporary directory: " + std::string(std::strerror(errno)));
  }
  directory_ = pattern;
}

ChildPool::~ChildPool() {
  kill_all();
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

void ChildPool::kill_all() {
  for (const Child& c : running_) {
    ::kill(-c.pid, SIGKILL);
    int status = 0;
    while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  running_.clear();
}

void ChildPool::start(const SweepTask& task) {
  Child child;
  child.task = task;
  child.out_path = directory_ + "/" + std::to_string(task.index) + ".out";
  child.err_path = directory_ + "/" + std::to_string(task.index) + ".err";
  std::vector<std::string> args = {options_.shardscope_binary, "sweep-point", options_.grid_file, "--index",
                                   std::to_string(task.index)};
  // The point itself, so the child resolves it without expanding the whole grid again; values too long for
  // one argument (Linux takes 128 KiB: an inline model as an axis value) leave the child to expand the grid.
  Json values = Json::array();
  for (const auto& [path, value] : task.axes) values.push_back({path, value});
  const std::string values_text = values.dump();
  if (values_text.size() < kMaxValuesArgumentBytes) {
    args.emplace_back("--values");
    args.push_back(values_text);
  }
  if (options_.simulate) args.emplace_back("--simulate");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, child.out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, child.err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A group of its own: the timeout kills the point with the simulations it forked; Ctrl-C reaches the
  // sweep alone, which then stops its points.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = ::posix_spawn(&child.pid, args.front().c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    throw OutputError("cannot start " + args.front() + " for a sweep point: " + std::strerror(rc));
  }
  child.started = std::chrono::steady_clock::now();
  running_.push_back(std::move(child));
}

Json ChildPool::finish(const Child& child, int wait_status, bool timed_out) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - child.started).count();
  const std::string out = read_text(child.out_path);
  const std::string err = read_text(child.err_path);
  std::error_code ignored;
  std::filesystem::remove(child.out_path, ignored);
  std::filesystem::remove(child.err_path, ignored);
  if (timed_out) {
    return sweep_row(child.task, options_, "error", {},
                     "timed out after " + format_seconds(options_.timeout_seconds) + " s and was killed",
                     wall);
  }
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    return sweep_row(child.task, options_, "error", {},
                     "the point's process was killed by signal " + std::to_string(signal) + " (" +
                         strsignal(signal) + ")" + (err.empty() ? "" : ": " + child_message(err)),
                     wall);
  }
  const int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  if (code != 0) {
    return sweep_row(child.task, options_, "error", {},
                     "exit status " + std::to_string(code) + ": " + child_message(err), wall);
  }
  const Json result = Json::parse(out, nullptr, false);
  if (result.is_discarded() || !result.is_object() || !result.contains("status")) {
    return sweep_row(child.task, options_, "error", {}, "the point's process printed no result", wall);
  }
  if (result.value("point", "") != child.task.id) {
    return sweep_row(child.task, options_, "error", {},
                     "the point resolved to id " + result.value("point", std::string("?")) + ", not " +
                         child.task.id + " (did the grid or a file it names change during the sweep?)",
                     wall);
  }
  return sweep_row(child.task, options_, result["status"].get<std::string>(), result["metrics"],
                   result.value("error", std::string()), wall);
}

std::vector<Json> ChildPool::poll(std::chrono::milliseconds wait) {
  std::vector<Json> rows;
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    for (std::size_t i = 0; i < running_.size();) {
      int status = 0;
      const pid_t done = ::waitpid(running_[i].pid, &status, WNOHANG);
      const bool late =
          options_.timeout_seconds > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - running_[i].started).count() >=
              options_.timeout_seconds;
      if (done == running_[i].pid) {
        ::kill(-running_[i].pid, SIGKILL);  // anything the point left behind in its group
        rows.push_back(finish(running_[i], status, false));
      } else if (late) {
        ::kill(-running_[i].pid, SIGKILL);
        while (::waitpid(running_[i].pid, &status, 0) < 0 && errno == EINTR) {
        }
        rows.push_back(finish(running_[i], status, true));
      } else {
        ++i;
        continue;
      }
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (!rows.empty() || running_.empty() || std::chrono::steady_clock::now() >= deadline) return rows;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

Interrupted sweep_interrupted(std::size_t done, std::size_t total, const std::string& results_path) {
  return Interrupted("sweep stopped after " + std::to_string(done) + " of " + std::to_string(total) +
                     " points; their rows are in " + results_path + " (--resume continues)");
}

}  // namespace shardscope::cli
