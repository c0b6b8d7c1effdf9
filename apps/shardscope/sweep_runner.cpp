// Sweep child processes: `shardscope sweep-point` through a SubprocessSet (process/subprocess.hpp), each in a
// process group of its own, killed with its group at the timeout; each end becomes a row.
#include "apps/shardscope/sweep_runner.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "apps/shardscope/exit_status.hpp"
#include "planner/core/units.hpp"

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
  children_.kill_all();
  points_.clear();
}

void ChildPool::start(const SweepTask& task) {
  Child child;
  child.task = task;
  child.out_path = directory_ + "/" + std::to_string(task.index) + ".out";
  child.err_path = directory_ + "/" + std::to_string(task.index) + ".err";
  process::SpawnRequest request;
  request.argv = {options_.shardscope_binary, "sweep-point", options_.grid_file, "--index",
                  std::to_string(task.index)};
  // The point itself, so the child resolves it without expanding the whole grid again; values too long for
  // one argument (Linux takes 128 KiB: an inline model as an axis value) leave the child to expand the grid.
  Json values = Json::array();
  for (const auto& [path, value] : task.axes) values.push_back({path, value});
  const std::string values_text = values.dump();
  if (values_text.size() < kMaxValuesArgumentBytes) {
    request.argv.emplace_back("--values");
    request.argv.push_back(values_text);
  }
  if (options_.simulate) request.argv.emplace_back("--simulate");
  request.stdout_to = process::Output::file(child.out_path);
  request.stderr_to = process::Output::file(child.err_path);
  // A group of its own: the timeout kills the point with the simulations it forked, and what it leaves
  // behind goes when it ends; Ctrl-C reaches the sweep alone, which then stops its points.
  request.own_process_group = true;
  request.timeout_seconds = options_.timeout_seconds;
  const std::string program = request.argv.front();
  try {
    const process::Subprocess& started = children_.start(std::move(request));
    child.started = std::chrono::steady_clock::now();
    points_[started.pid()] = std::move(child);
  } catch (const process::ProcessError& e) {
    throw OutputError("cannot start " + program + " for a sweep point: " + std::strerror(e.error_number()));
  }
}

Json ChildPool::finish(const Child& child, const process::ExitStatus& status) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - child.started).count();
  const std::string out = read_text(child.out_path);
  const std::string err = read_text(child.err_path);
  std::error_code ignored;
  std::filesystem::remove(child.out_path, ignored);
  std::filesystem::remove(child.err_path, ignored);
  if (status.how == process::ExitStatus::How::timed_out) {
    return sweep_row(
        child.task, options_, "error", {},
        "timed out after " + units::format_general(options_.timeout_seconds) + " s and was killed", wall);
  }
  if (status.how == process::ExitStatus::How::signalled) {
    return sweep_row(child.task, options_, "error", {},
                     "the point's process was killed by signal " + std::to_string(status.signal) + " (" +
                         strsignal(status.signal) + ")" + (err.empty() ? "" : ": " + child_message(err)),
                     wall);
  }
  if (status.code != 0) {
    return sweep_row(child.task, options_, "error", {},
                     "exit status " + std::to_string(status.code) + ": " + child_message(err), wall);
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
  for (const std::unique_ptr<process::Subprocess>& done : children_.wait_any(wait)) {
    const auto point = points_.find(done->pid());
    rows.push_back(finish(point->second, done->status()));
    points_.erase(point);
  }
  return rows;
}

Interrupted sweep_interrupted(std::size_t done, std::size_t total, const std::string& results_path) {
  return Interrupted("sweep stopped after " + std::to_string(done) + " of " + std::to_string(total) +
                     " points; their rows are in " + results_path + " (--resume continues)");
}

}  // namespace shardscope::cli
