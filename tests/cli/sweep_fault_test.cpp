// Sweeps under faults: a sweep killed with SIGKILL mid-run resumes and the merged CSV has every point once;
// a point that crashes or hangs becomes an error row (after the per-point timeout); concurrent writers of one
// results file never interleave partial lines.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apps/shardscope/sweep_rows.hpp"
#include "run_command.hpp"
#include "sweep_files.hpp"

namespace shardscope {
namespace {

using test::temp_path;

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kGrid = kSource + "/scenarios/sweeps/example.yaml";

std::size_t line_count(const std::string& path) {
  const std::string text = test::read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The CSV's data lines by point id: each must appear once.
std::map<std::string, int> csv_points(const std::string& csv) {
  std::map<std::string, int> count;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) ++count[line.substr(0, line.find(','))];
  return count;
}

// The processes below `root` (children, their children, ...) as /proc shows them now.
std::vector<pid_t> descendants(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    std::getline(stat, text);
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 2));
    char state = 0;
    pid_t parent = 0;
    fields >> state >> parent;
    if (state != 'Z') children[parent].push_back(static_cast<pid_t>(std::stol(name)));
  }
  std::vector<pid_t> found, todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p]) {
      found.push_back(c);
      todo.push_back(c);
    }
  }
  return found;
}

// Whether `pid` still runs (neither gone nor a zombie waiting for its reaper).
[[maybe_unused]] bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const std::size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

// Whether `pid` has started `shardscope sweep-point` (its command line says so). Before that, posix_spawn's
// child shares the sweep's memory and the sweep waits for its exec: a child stopped then stops the sweep.
bool is_sweep_point(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  const std::string cmdline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return cmdline.find(std::string("sweep-point") + '\0') != std::string::npos;
}

// Starts `shardscope sweep` with the arguments and the fault hook; returns its pid.
pid_t start_sweep(const std::vector<std::string>& arguments, const std::string& fault,
                  const std::string& temp_folder = "") {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("SHARDSCOPE_SWEEP_FAULT", fault.c_str(), 1);
    if (!temp_folder.empty()) ::setenv("TMPDIR", temp_folder.c_str(), 1);
    std::vector<std::string> args = {kBinary, "sweep"};
    args.insert(args.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(kBinary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits (up to 60 s) until `predicate` holds.
template <typename Predicate>
bool wait_until(Predicate predicate) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!predicate()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST(SweepFaults, KilledSweepResumesWithEveryPointExactlyOnce) {
  const std::string out = temp_path("killed.jsonl");
  // Points run most expensive first (the nd-64x1536 points 2 and 3, then 0 and 1): point 0 hangs, so the
  // sweep (one job) is certainly mid-run after two rows; it is then killed with -9.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("SHARDSCOPE_SWEEP_FAULT", "hang:0", 1);
    ::execl(kBinary.c_str(), kBinary.c_str(), "sweep", kGrid.c_str(), "--out", out.c_str(), "--jobs", "1",
            "--quiet", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (line_count(out) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(line_count(out), 2u);
  const auto resumed =
      test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --quiet --jobs 2");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("Swept 2 points"), std::string::npos) << resumed.out;
  const auto merged = test::run_command(kBinary + " merge " + out + " --grid " + kGrid);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const std::map<std::string, int> points = csv_points(merged.out);
  EXPECT_EQ(points.size(), 4u);
  for (const auto& [id, n] : points) EXPECT_EQ(n, 1) << id;
  std::filesystem::remove(out);
}

TEST(SweepFaults, CrashAndHangBecomeErrorRowsAndRetryFixesThem) {
  const std::string out = temp_path("faults.jsonl");
  const auto crashed = test::run_command("SHARDSCOPE_SWEEP_FAULT=crash:1 " + kBinary + " sweep " + kGrid +
                                         " --out " + out + " --jobs 2 --quiet");
  EXPECT_EQ(crashed.exit_code, 4);
  EXPECT_NE(crashed.err.find("1 of 4 points ended in error rows"), std::string::npos) << crashed.err;
  const auto started = std::chrono::steady_clock::now();
  const auto hung =
      test::run_command("SHARDSCOPE_SWEEP_FAULT=hang:1 " + kBinary + " sweep " + kGrid + " --out " + out +
                        " --jobs 2 --quiet --resume --retry-errors --timeout 1");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 30);
  EXPECT_EQ(hung.exit_code, 4) << hung.err;
  std::vector<nlohmann::json> errors;
  std::istringstream in(test::read_file(out));
  std::string line;
  while (std::getline(in, line)) {
    const auto row = nlohmann::json::parse(line);
    if (row["status"] == "error") errors.push_back(row);
  }
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0]["index"], 1);
  EXPECT_NE(errors[0]["error"].get<std::string>().find("killed by signal 9"), std::string::npos) << errors[0];
  EXPECT_EQ(errors[1]["index"], 1);  // retried, and now hanging
  EXPECT_EQ(errors[1]["error"], "timed out after 1 s and was killed");
  // A resume without --retry-errors keeps the error row, and says so in its summary and exit status.
  const auto kept = test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --quiet");
  EXPECT_EQ(kept.exit_code, 4) << kept.err;
  EXPECT_NE(kept.out.find("Swept 0 points"), std::string::npos) << kept.out;
  EXPECT_NE(kept.out.find("0 errors; 1 earlier error rows kept"), std::string::npos) << kept.out;
  EXPECT_NE(kept.err.find("1 points recorded earlier have only error rows"), std::string::npos) << kept.err;
  // Without the fault, --retry-errors runs point 1 again; the others already have ok rows.
  const auto fixed =
      test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --retry-errors --quiet");
  EXPECT_EQ(fixed.exit_code, 0) << fixed.err;
  EXPECT_NE(fixed.out.find("Swept 1 points"), std::string::npos) << fixed.out;
  const auto merged = test::run_command(kBinary + " merge " + out + " --grid " + kGrid);
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out.find(",error,"), std::string::npos) << merged.out;
  EXPECT_EQ(csv_points(merged.out).size(), 4u);
  std::filesystem::remove(out);
}

#ifdef SHARDSCOPE_HAVE_SIM
// Issue 30, 23: a failed --simulate was an ok row; now it is an error row that keeps the planner's metrics.
TEST(SweepFaults, AFailedSimulationIsAnErrorRow) {
  const std::string out = temp_path("simfault.jsonl");
  const std::string grid = test::write_temp(
      "simfault.yaml",
      "name: simfault\nbase: " + kSource +
          "/scenarios/default.yaml\nstrategies: [fsdp]\naxes:\n  training.memory_limit: [8GB, "
          "16GB]\n");
  const auto r = test::run_command("SHARDSCOPE_SWEEP_FAULT=simulation:1 " + kBinary + " sweep " + grid +
                                   " --out " + out + " --simulate --jobs 1 --quiet");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.out.find("1 ok, 0 does-not-fit, 1 errors"), std::string::npos) << r.out;
  const std::vector<nlohmann::json> rows = test::rows_of(out);
  ASSERT_EQ(rows.size(), 2u);
  const nlohmann::json& failed = rows[0]["index"] == 1 ? rows[0] : rows[1];
  EXPECT_EQ(failed["status"], "error");
  EXPECT_NE(failed["error"].get<std::string>().find("the simulation of fsdp failed"), std::string::npos)
      << failed;
  EXPECT_TRUE(failed["metrics"]["fsdp"].contains("samples_per_second")) << failed;
  std::filesystem::remove(out);
  std::filesystem::remove(grid);
}
#endif

// Issue 30, 12: while a sweep writes a results file, a second sweep of the same points on it is refused; the
// shards of one grid share a file.
TEST(SweepFaults, ASecondSweepOnTheSameFileIsRefused) {
  const std::string out = temp_path("locked.jsonl");
  const pid_t first =
      start_sweep({kGrid, "--out", out, "--jobs", "1", "--quiet", "--shard", "0/2"}, "hang:0");
  ASSERT_GT(first, 0);
  ASSERT_TRUE(wait_until([&] { return !descendants(first).empty(); }));  // its lock is taken by then
  const auto whole = test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --quiet");
  EXPECT_EQ(whole.exit_code, 2) << whole.err;
  EXPECT_NE(whole.err.find("another sweep is writing " + out), std::string::npos) << whole.err;
  const auto same =
      test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --quiet --shard 0/2");
  EXPECT_EQ(same.exit_code, 2) << same.err;
  EXPECT_NE(same.err.find("with shard 0/2, or without shards"), std::string::npos) << same.err;
  const auto other =
      test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --quiet --shard 1/2");
  EXPECT_EQ(other.exit_code, 0) << other.err;
  ::kill(first, SIGKILL);
  ::waitpid(first, nullptr, 0);
  // The lock ends with its sweep, however it ended.
  ASSERT_TRUE(wait_until([&] {
    return test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --resume --quiet").exit_code ==
           0;
  }));
  std::filesystem::remove(out);
}

#ifdef SHARDSCOPE_HAVE_SIM
// Issue 30, 5: a sweep killed (-9) or stopped (SIGTERM, SIGHUP) while a point's simulation runs leaves no
// point and no simulation running; a stopped sweep exits as Ctrl-C does, its rows whole.
TEST(SweepFaults, AKilledOrStoppedSweepLeavesNothingRunning) {
  const std::string grid = test::write_temp(
      "simhang.yaml",
      "name: simhang\nbase: " + kSource +
          "/scenarios/default.yaml\nstrategies: [fsdp]\naxes:\n  training.memory_limit: [8GB, 16GB]\n");
  for (const int signal : {SIGKILL, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(strsignal(signal));
    const std::string out = temp_path("simhang.jsonl");
    std::filesystem::remove(out);
    const std::string temp = temp_path("simhang-tmp");
    std::filesystem::remove_all(temp);
    std::filesystem::create_directory(temp);
    const pid_t sweep =
        start_sweep({grid, "--out", out, "--jobs", "1", "--quiet", "--simulate"}, "simulation-hang:0", temp);
    ASSERT_GT(sweep, 0);
    std::vector<pid_t> below;
    ASSERT_TRUE(wait_until([&] { return (below = descendants(sweep)).size() >= 2; }));  // point + simulation
    ::kill(sweep, signal);
    int status = 0;
    ::waitpid(sweep, &status, 0);
    if (signal == SIGKILL) {
      EXPECT_TRUE(WIFSIGNALED(status));
    } else {
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 130);
      EXPECT_TRUE(std::filesystem::is_empty(temp));  // the points' output folder is gone
    }
    std::filesystem::remove_all(temp);
    // Only after a failed wait are these pids still ours: once gone they may be another test's.
    if (!wait_until([&] { return std::none_of(below.begin(), below.end(), running); })) {
      ADD_FAILURE() << "a point or its simulation outlived the sweep";
      for (pid_t p : below) ::kill(p, SIGKILL);
    }
    EXPECT_EQ(test::read_file(out), "");
    std::filesystem::remove(out);
  }
  std::filesystem::remove(grid);
}
#endif

// A stopped point (SIGSTOP, as a debugger or a job suspension leaves it) still ends at the timeout as an
// error row, and a sweep stopped and continued (SIGSTOP, SIGCONT) finishes as if it never was.
TEST(SweepFaults, StoppedProcessesEndAsTimeoutsOrContinue) {
  // One point, held by the hook so that it cannot end before it is stopped (and so that a slow build, such
  // as the sanitizers', times nothing else out).
  const std::string grid =
      test::write_temp("stopped.yaml", "name: stopped\nbase: " + kSource +
                                           "/scenarios/default.yaml\naxes:\n  model: [nd-48x1536]\n");
  const std::string out = temp_path("stopped.jsonl");
  std::filesystem::remove(out);
  const pid_t sweep = start_sweep({grid, "--out", out, "--jobs", "1", "--quiet", "--timeout", "2"}, "hang:0");
  ASSERT_GT(sweep, 0);
  // The point once it runs sweep-point: stopped before its exec, it would hold the sweep in posix_spawn.
  std::vector<pid_t> below;
  ASSERT_TRUE(
      wait_until([&] { return !(below = descendants(sweep)).empty() && is_sweep_point(below.front()); }));
  ::kill(below.front(), SIGSTOP);  // the point
  ::kill(sweep, SIGSTOP);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(sweep, SIGCONT);
  int status = 0;
  ::waitpid(sweep, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4);
  const std::vector<nlohmann::json> rows = test::rows_of(out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["status"], "error");
  EXPECT_EQ(rows[0]["error"], "timed out after 2 s and was killed");
  std::filesystem::remove(out);
  std::filesystem::remove(grid);
}

TEST(SweepFaults, MergeReportsMissingPoints) {
  const std::string out = temp_path("partial.jsonl");
  ASSERT_EQ(
      test::run_command(kBinary + " sweep " + kGrid + " --out " + out + " --shard 0/2 --quiet").exit_code, 0);
  const auto merged = test::run_command(kBinary + " merge " + out + " --grid " + kGrid);
  EXPECT_EQ(merged.exit_code, 4);
  EXPECT_NE(merged.err.find("missing: point 1 ("), std::string::npos) << merged.err;
  EXPECT_NE(merged.err.find("2 of 4 points have an ok or does-not-fit row"), std::string::npos) << merged.err;
  EXPECT_EQ(csv_points(merged.out).size(), 2u);
  std::filesystem::remove(out);
}

TEST(SweepFaults, ConcurrentWritersNeverInterleaveLines) {
  const std::string out = temp_path("concurrent.jsonl");
  constexpr int kWriters = 4, kRows = 50;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      cli::RowWriter writer(out);
      for (int r = 0; r < kRows; ++r) {
        cli::Json row;
        row["point"] = std::to_string(w) + "-" + std::to_string(r);
        row["padding"] = std::string(200'000, static_cast<char>('a' + w));  // rows far above PIPE_BUF
        writer.append(row);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  int skipped = -1;
  const std::vector<cli::Json> rows = cli::read_rows(out, &skipped);
  EXPECT_EQ(skipped, 0);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kWriters * kRows));
  for (const cli::Json& row : rows) {
    const std::string padding = row["padding"].get<std::string>();
    EXPECT_EQ(padding, std::string(200'000, padding.front()));
  }
  // A torn last line (a writer killed during its write) is skipped, and the next row starts a new line.
  { std::ofstream(out, std::ios::app) << "{\"point\": \"torn"; }
  cli::RowWriter(out).append(cli::Json{{"point", "after"}});
  const std::vector<cli::Json> after = cli::read_rows(out, &skipped);
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(after.back()["point"], "after");
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace shardscope
