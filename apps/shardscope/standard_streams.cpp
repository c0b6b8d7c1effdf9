// Standard descriptors, checked standard output, and the abort and file-size signal guards of the CLI.
#include "apps/shardscope/standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

#include "apps/shardscope/exit_status.hpp"

namespace shardscope::cli {
namespace {

std::atomic<const char*> abort_explanation{
    "shardscope aborted: out of memory, or an internal error (the lines above may say which; if memory was "
    "not short, please report it with the command and its input)"};

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

void write_raw(int fd, const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(fd, text, left);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return;
    }
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Prints "error: " + the texts on stderr and exits 4; allocates nothing (safe in a signal handler).
[[noreturn]] void fail_with(const char* text, const char* more = "") {
  write_raw(STDERR_FILENO, "error: ");
  write_raw(STDERR_FILENO, text);
  write_raw(STDERR_FILENO, more);
  write_raw(STDERR_FILENO, "\n");
  ::_exit(to_int(ExitStatus::failed));
}

extern "C" void on_abort(int /*signal*/) { fail_with(abort_explanation.load()); }

// An exception nobody caught (one thrown while the libraries start, before main(), or through a noexcept
// function): out of memory is said in words, anything else is an internal error; exit 4 either way.
[[noreturn]] void on_terminate() {
  if (const std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const std::bad_alloc&) {
      fail_with(out_of_memory_message());
    } catch (const std::length_error&) {
      fail_with(out_of_memory_message());
    } catch (const std::exception& e) {
      fail_with("internal error: an uncaught exception: ", e.what());
    } catch (...) {
    }
  }
  fail_with(abort_explanation.load());
}

}  // namespace

bool guard_standard_descriptors() {
  bool stdout_open = true;
  for (int fd = 0; fd <= 2; ++fd) {
    if (is_open(fd)) continue;
    if (fd == STDOUT_FILENO) stdout_open = false;
    const int null = ::open("/dev/null", fd == STDERR_FILENO ? O_WRONLY : O_RDONLY);
    if (null >= 0 && null != fd) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
  return stdout_open;
}

void write_standard_output(std::string_view text) {
  const char* data = text.data();
  std::size_t left = text.size();
  int error = 0;
  while (left > 0 && error == 0) {
    const ssize_t n = ::write(STDOUT_FILENO, data, left);
    if (n < 0) {
      if (errno != EINTR) error = errno;
      continue;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(STDOUT_FILENO) != 0 && error == 0 && errno != EINTR) error = errno;
  if (error != 0) throw OutputError(std::string("cannot write standard output: ") + std::strerror(error));
}

void install_signal_guards() {
  struct sigaction action {};
  action.sa_handler = on_abort;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGABRT, &action, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
  std::set_terminate(on_terminate);
}

void set_abort_explanation(const char* text) { abort_explanation.store(text); }

}  // namespace shardscope::cli
