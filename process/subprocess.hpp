// Subprocess and SubprocessSet: the one POSIX layer under every child process shardscope starts (spawn with
// posix_spawn, output to a pipe or a file, exit status or signal, kill, timeout), in the spirit of ninja's.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shardscope::process {

// A child that could not be started (or waited for): what() names the program and the reason; `error_number`
// is the errno behind it.
class ProcessError : public std::runtime_error {
 public:
  ProcessError(const std::string& message, int error_number)
      : std::runtime_error(message), error_number_(error_number) {}
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

// Where a child's standard output or error goes.
struct Output {
  enum class Kind { discard, pipe, file };
  Kind kind = Kind::discard;
  std::string path;  // Kind::file: created (mode 0600) or truncated

  static Output discard() { return {}; }
  static Output pipe() { return {Kind::pipe, {}}; }  // kept in memory: Subprocess::output/errors
  static Output file(std::string path) { return {Kind::file, std::move(path)}; }
};

struct SpawnRequest {
  std::vector<std::string> argv;  // argv[0]: the program's path, run as given (no PATH search)
  Output stdout_to;               // standard input is always /dev/null
  Output stderr_to;
  // Added to (or replacing in) this process's environment, "NAME" -> value.
  std::vector<std::pair<std::string, std::string>> environment;
  // A process group of its own: kill() and the timeout reach the whole group, whatever the child left
  // running in it is killed when the child ends, and a terminal's Ctrl-C reaches the parent alone.
  bool own_process_group = false;
  double timeout_seconds = 0;  // killed (SIGKILL) this long after the start; 0: no limit
};

// How a child ended.
struct ExitStatus {
  enum class How { exited, signalled, timed_out };
  How how = How::exited;
  int code = 0;    // How::exited: the exit code
  int signal = 0;  // How::signalled: the signal; How::timed_out: the one it was killed with
  bool success() const { return how == How::exited && code == 0; }
  // "exit status 3", "signal 9 (Killed)", "timed out after 2.5 s and was killed".
  std::string describe(double timeout_seconds) const;
};

class Subprocess {
 public:
  // Starts the child; throws ProcessError naming argv[0] when it cannot (a program that does not exist, a
  // file that cannot be opened for its output, no argv).
  explicit Subprocess(SpawnRequest request);
  ~Subprocess();  // a child still running is killed and reaped
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  const SpawnRequest& request() const { return request_; }
  bool finished() const { return finished_; }
  // Without blocking: reads what its pipes hold, reaps it when it has exited, kills it at its timeout.
  // Returns finished().
  bool poll();
  // Blocks until it has finished (its timeout still applies); returns status().
  const ExitStatus& wait();
  void kill();  // SIGKILL (to its group when it has one of its own) and reap; status() says signalled
  const ExitStatus& status() const { return status_; }   // meaningful once finished()
  const std::string& output() const { return output_; }  // Output::pipe standard output
  const std::string& errors() const { return errors_; }  // Output::pipe standard error
  // The descriptors of its open pipes (to wait on), -1 where none.
  int output_fd() const { return output_fd_; }
  int errors_fd() const { return errors_fd_; }
  std::chrono::steady_clock::time_point started() const { return started_; }

 private:
  void drain();
  void reaped(int wait_status, bool timed_out);
  void signal_child() const;

  SpawnRequest request_;
  pid_t pid_ = 0;
  std::chrono::steady_clock::time_point started_;
  bool finished_ = false;
  ExitStatus status_;
  int output_fd_ = -1, errors_fd_ = -1;
  std::string output_, errors_;
};

// Several children at once: start them, then wait until any has finished.
class SubprocessSet {
 public:
  SubprocessSet() = default;
  ~SubprocessSet() = default;  // each Subprocess kills what still runs
  SubprocessSet(const SubprocessSet&) = delete;
  SubprocessSet& operator=(const SubprocessSet&) = delete;

  Subprocess& start(SpawnRequest request);  // throws ProcessError as Subprocess does
  std::size_t running() const { return running_.size(); }
  // Waits at most `wait` until at least one child has finished (exited, or killed at its timeout) and
  // returns those, in start order, no longer in the set; empty when none finished in time or none runs.
  std::vector<std::unique_ptr<Subprocess>> wait_any(std::chrono::milliseconds wait);
  void kill_all();  // kills and reaps every running child; they leave the set

 private:
  std::vector<std::unique_ptr<Subprocess>> finished_now();
  std::vector<std::unique_ptr<Subprocess>> running_;
};

// Sleeps until one of `fds` (-1 entries skipped) is readable or `wait` has passed.
void wait_readable(const std::vector<int>& fds, std::chrono::milliseconds wait);

}  // namespace shardscope::process
