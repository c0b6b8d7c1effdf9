// Subprocess and SubprocessSet against real children (/bin/sh -c ...): exit codes, signals, timeouts,
// captured output, files, environment, process groups, many at once, and programs that cannot start.
#include "process/subprocess.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace shardscope::process {
namespace {

SpawnRequest shell(const std::string& script) {
  SpawnRequest request;
  request.argv = {"/bin/sh", "-c", script};
  request.stdout_to = Output::pipe();
  request.stderr_to = Output::pipe();
  return request;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string temporary_file(const char* name) {
  return (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

TEST(Subprocess, ReportsExitCodesAndCapturesBothOutputs) {
  Subprocess child(shell("echo out; echo err >&2; exit 3"));
  const ExitStatus& status = child.wait();
  EXPECT_EQ(status.how, ExitStatus::How::exited);
  EXPECT_EQ(status.code, 3);
  EXPECT_FALSE(status.success());
  EXPECT_EQ(status.describe(0), "exit status 3");
  EXPECT_EQ(child.output(), "out\n");
  EXPECT_EQ(child.errors(), "err\n");
  EXPECT_TRUE(child.finished());
  EXPECT_EQ(child.output_fd(), -1);
}

TEST(Subprocess, SucceedsWithExitZeroAndStandardInputIsEmpty) {
  Subprocess child(shell("cat; echo done"));
  EXPECT_TRUE(child.wait().success());
  EXPECT_EQ(child.output(), "done\n");
}

TEST(Subprocess, ReportsTheSignalThatEndedIt) {
  Subprocess child(shell("kill -TERM $$; sleep 5"));
  const ExitStatus& status = child.wait();
  EXPECT_EQ(status.how, ExitStatus::How::signalled);
  EXPECT_EQ(status.signal, SIGTERM);
  EXPECT_EQ(status.describe(0), "signal 15 (" + std::string(strsignal(SIGTERM)) + ")");
}

TEST(Subprocess, KillsAChildAtItsTimeout) {
  SpawnRequest request = shell("echo begun; sleep 30");
  request.timeout_seconds = 0.2;
  const auto start = std::chrono::steady_clock::now();
  Subprocess child(request);
  const ExitStatus& status = child.wait();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(status.how, ExitStatus::How::timed_out);
  EXPECT_EQ(status.signal, SIGKILL);
  EXPECT_EQ(status.describe(0.2), "timed out after 0.2 s and was killed");
  EXPECT_EQ(child.output(), "begun\n");  // what it wrote before the kill is kept
  EXPECT_GE(seconds, 0.2);
  EXPECT_LT(seconds, 10);
}

TEST(Subprocess, KillEndsARunningChild) {
  Subprocess child(shell("sleep 30"));
  EXPECT_FALSE(child.poll());
  child.kill();
  EXPECT_TRUE(child.finished());
  EXPECT_EQ(child.status().how, ExitStatus::How::signalled);
  EXPECT_EQ(child.status().signal, SIGKILL);
}

TEST(Subprocess, WritesOutputsToFilesOrDiscardsThem) {
  const std::string out = temporary_file("subprocess-out-"), err = temporary_file("subprocess-err-");
  SpawnRequest request = shell("echo to-file; echo to-err >&2");
  request.stdout_to = Output::file(out);
  request.stderr_to = Output::file(err);
  EXPECT_TRUE(Subprocess(request).wait().success());
  EXPECT_EQ(read_file(out), "to-file\n");
  EXPECT_EQ(read_file(err), "to-err\n");
  request.stdout_to = Output::discard();
  request.stderr_to = Output::file(err);  // truncated
  request.argv = {"/bin/sh", "-c", "echo gone"};
  Subprocess quiet(request);
  EXPECT_TRUE(quiet.wait().success());
  EXPECT_EQ(quiet.output(), "");
  EXPECT_EQ(read_file(err), "");
  std::filesystem::remove(out);
  std::filesystem::remove(err);
}

TEST(Subprocess, CapturesLargeOutputWithoutBlockingTheChild) {
  Subprocess child(shell("i=0; while [ $i -lt 20000 ]; do echo 0123456789abcdef >&2; i=$((i+1)); done"));
  EXPECT_TRUE(child.wait().success());
  EXPECT_EQ(child.errors().size(), 20000u * 17u);
}

TEST(Subprocess, PassesAddedAndReplacedEnvironmentVariables) {
  ::setenv("SHARDSCOPE_PROCESS_TEST_KEEP", "kept", 1);
  ::setenv("SHARDSCOPE_PROCESS_TEST_SWAP", "old", 1);
  SpawnRequest request =
      shell("echo $SHARDSCOPE_PROCESS_TEST_KEEP $SHARDSCOPE_PROCESS_TEST_SWAP $SHARDSCOPE_PROCESS_TEST_NEW");
  request.environment = {{"SHARDSCOPE_PROCESS_TEST_SWAP", "new"}, {"SHARDSCOPE_PROCESS_TEST_NEW", "added"}};
  Subprocess child(request);
  EXPECT_TRUE(child.wait().success());
  EXPECT_EQ(child.output(), "kept new added\n");
}

TEST(Subprocess, AnOwnProcessGroupIsKilledWithWhatItLeftBehind) {
  const std::string marker = temporary_file("subprocess-orphan-");
  SpawnRequest request = shell("(sleep 1; echo alive > " + marker + ") & exit 0");
  request.stdout_to = Output::discard();
  request.stderr_to = Output::discard();
  request.own_process_group = true;
  Subprocess child(request);
  EXPECT_TRUE(child.wait().success());
  ::usleep(1'500'000);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the background child outlived its group";
  std::filesystem::remove(marker);
}

TEST(Subprocess, AProgramThatDoesNotExistIsAClearError) {
  SpawnRequest request = shell("");
  request.argv = {"/nonexistent/shardscope-no-such-program", "--help"};
  try {
    Subprocess child(request);
    FAIL() << "started a program that does not exist";
  } catch (const ProcessError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot start /nonexistent/shardscope-no-such-program: No such file or directory");
    EXPECT_EQ(e.error_number(), ENOENT);
  }
}

TEST(Subprocess, AFileThatCannotBeOpenedOrNoProgramIsAClearError) {
  SpawnRequest request = shell("true");
  request.stdout_to = Output::file("/nonexistent/folder/out.txt");
  try {
    Subprocess child(request);
    FAIL() << "wrote to a folder that does not exist";
  } catch (const ProcessError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open /nonexistent/folder/out.txt for the output of /bin/sh: No such file or directory");
  }
  request.argv.clear();
  EXPECT_THROW(Subprocess{request}, ProcessError);
}

TEST(SubprocessSet, RunsManyAtOnceAndReturnsEachOnceFinished) {
  SubprocessSet set;
  constexpr int kChildren = 24;
  for (int i = 0; i < kChildren; ++i)
    set.start(shell("sleep 0." + std::to_string(i % 3) + "; echo " + std::to_string(i)));
  EXPECT_EQ(set.running(), static_cast<std::size_t>(kChildren));
  std::set<std::string> seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (set.running() > 0 && std::chrono::steady_clock::now() < deadline) {
    for (const std::unique_ptr<Subprocess>& child : set.wait_any(std::chrono::milliseconds(500))) {
      EXPECT_TRUE(child->finished());
      EXPECT_TRUE(child->status().success());
      seen.insert(child->output());
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kChildren));
  EXPECT_TRUE(set.wait_any(std::chrono::milliseconds(100)).empty());  // none runs: returns at once
}

TEST(SubprocessSet, WaitAnyReturnsEmptyAtItsDeadlineAndTimeoutsFinishChildren) {
  SubprocessSet set;
  set.start(shell("sleep 30"));
  SpawnRequest late = shell("sleep 30");
  late.timeout_seconds = 0.3;
  set.start(late);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(set.wait_any(std::chrono::milliseconds(50)).empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  std::vector<std::unique_ptr<Subprocess>> done;
  while (done.empty()) done = set.wait_any(std::chrono::milliseconds(1000));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0]->status().how, ExitStatus::How::timed_out);
  EXPECT_EQ(set.running(), 1u);
  set.kill_all();
  EXPECT_EQ(set.running(), 0u);
}

TEST(SubprocessSet, AChildThatCannotStartLeavesTheOthersRunning) {
  SubprocessSet set;
  set.start(shell("exit 0"));
  SpawnRequest missing = shell("");
  missing.argv = {"/nonexistent/program"};
  EXPECT_THROW(set.start(missing), ProcessError);
  EXPECT_EQ(set.running(), 1u);
  std::vector<std::unique_ptr<Subprocess>> done;
  while (done.empty()) done = set.wait_any(std::chrono::milliseconds(1000));
  EXPECT_TRUE(done[0]->status().success());
}

}  // namespace
}  // namespace shardscope::process
