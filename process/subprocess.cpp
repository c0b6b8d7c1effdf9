// One child process: posix_spawn with its outputs redirected, non-blocking polls, timeout and kill.
#include "process/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

extern char** environ;

namespace shardscope::process {
namespace {

std::string reason(int error_number) { return std::strerror(error_number); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// posix_spawn's file actions and attributes, destroyed on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  std::vector<int> child_ends;  // descriptors only the child keeps (closed here once it is spawned)
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    for (int& fd : child_ends) close_fd(fd);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// Points descriptor `target` of the child at `output`; returns the parent's end of a pipe, else -1.
int redirect(SpawnSetup& setup, int target, const Output& output, const std::string& program) {
  if (output.kind == Output::Kind::discard) {
    posix_spawn_file_actions_addopen(&setup.actions, target, "/dev/null", O_WRONLY, 0);
    return -1;
  }
  if (output.kind == Output::Kind::file) {
    const int fd = ::open(output.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      const int error = errno;
      throw ProcessError(
          "cannot open " + output.path + " for the output of " + program + ": " + reason(error), error);
    }
    setup.child_ends.push_back(fd);
    posix_spawn_file_actions_adddup2(&setup.actions, fd, target);  // dup2 clears close-on-exec
    return -1;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    const int error = errno;
    throw ProcessError("cannot create a pipe for " + program + ": " + reason(error), error);
  }
  setup.child_ends.push_back(fds[1]);
  posix_spawn_file_actions_adddup2(&setup.actions, fds[1], target);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return fds[0];
}

// This process's environment with `changes` applied ("NAME=value" strings).
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& changes) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced =
        std::any_of(changes.begin(), changes.end(), [&](const auto& c) { return c.first == name; });
    if (!replaced) out.push_back(entry);
  }
  for (const auto& [name, value] : changes) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Appends what `fd` holds now; closes it at end of file.
void read_available(int& fd, std::string& into) {
  char buffer[4096];
  while (fd >= 0) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      into.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      close_fd(fd);
    } else if (errno != EINTR) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) close_fd(fd);
      return;
    }
  }
}

int wait_blocking(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::string ExitStatus::describe(double timeout_seconds) const {
  if (how == How::exited) return "exit status " + std::to_string(code);
  if (how == How::signalled) return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds);
  return std::string("timed out after ") + seconds + " s and was killed";
}

Subprocess::Subprocess(SpawnRequest request) : request_(std::move(request)) {
  if (request_.argv.empty() || request_.argv.front().empty()) {
    throw ProcessError("cannot start a child process: no program named", EINVAL);
  }
  const std::string& program = request_.argv.front();
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  output_fd_ = redirect(setup, STDOUT_FILENO, request_.stdout_to, program);
  try {
    errors_fd_ = redirect(setup, STDERR_FILENO, request_.stderr_to, program);
  } catch (...) {
    close_fd(output_fd_);
    throw;
  }
  if (request_.own_process_group) {
    posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&setup.attributes, 0);
  }
  std::vector<std::string> args = request_.argv;
  std::vector<char*> argv = pointers(args);
  std::vector<std::string> variables;
  std::vector<char*> envp;
  if (!request_.environment.empty()) {
    variables = environment_with(request_.environment);
    envp = pointers(variables);
  }
  const int rc = ::posix_spawn(&pid_, program.c_str(), &setup.actions, &setup.attributes, argv.data(),
                               envp.empty() ? environ : envp.data());
  if (rc != 0) {
    close_fd(output_fd_);
    close_fd(errors_fd_);
    throw ProcessError("cannot start " + program + ": " + reason(rc), rc);
  }
  started_ = std::chrono::steady_clock::now();
}

Subprocess::~Subprocess() {
  if (!finished_ && pid_ > 0) {
    signal_child();
    wait_blocking(pid_);
  }
  close_fd(output_fd_);
  close_fd(errors_fd_);
}

void Subprocess::signal_child() const { ::kill(request_.own_process_group ? -pid_ : pid_, SIGKILL); }

void Subprocess::drain() {
  read_available(output_fd_, output_);
  read_available(errors_fd_, errors_);
}

void Subprocess::reaped(int wait_status, bool timed_out) {
  if (timed_out) {
    status_ = {ExitStatus::How::timed_out, 0, SIGKILL};
  } else if (WIFSIGNALED(wait_status)) {
    status_ = {ExitStatus::How::signalled, 0, WTERMSIG(wait_status)};
  } else {
    status_ = {ExitStatus::How::exited, WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1, 0};
  }
  if (request_.own_process_group) ::kill(-pid_, SIGKILL);  // whatever it left running in its group
  drain();  // what it wrote before it ended (anything it left holding the pipe is not waited for)
  close_fd(output_fd_);
  close_fd(errors_fd_);
  finished_ = true;
}

bool Subprocess::poll() {
  if (finished_) return true;
  drain();
  int wait_status = 0;
  const pid_t done = ::waitpid(pid_, &wait_status, WNOHANG);
  if (done == pid_) {
    reaped(wait_status, false);
    return true;
  }
  if (done < 0 && errno != EINTR) {
    const int error = errno;
    throw ProcessError("cannot wait for " + request_.argv.front() + ": " + reason(error), error);
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  if (request_.timeout_seconds > 0 && elapsed >= request_.timeout_seconds) {
    signal_child();
    reaped(wait_blocking(pid_), true);
    return true;
  }
  return false;
}

const ExitStatus& Subprocess::wait() {
  std::chrono::milliseconds pause(1);
  while (!poll()) {
    wait_readable({output_fd_, errors_fd_}, pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return status_;
}

void Subprocess::kill() {
  if (finished_) return;
  signal_child();
  reaped(wait_blocking(pid_), false);
}

void wait_readable(const std::vector<int>& fds, std::chrono::milliseconds wait) {
  std::vector<pollfd> polled;
  for (int fd : fds) {
    if (fd >= 0) polled.push_back({fd, POLLIN, 0});
  }
  if (polled.empty()) {
    std::this_thread::sleep_for(wait);
    return;
  }
  ::poll(polled.data(), polled.size(), static_cast<int>(std::max<std::int64_t>(0, wait.count())));
}

}  // namespace shardscope::process
