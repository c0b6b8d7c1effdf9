// Runs a documented command like a transcript case and holds the text helpers of both runners.
#include "tests/transcripts/command_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "tests/sanitizer_noise.hpp"

namespace shardscope::test {

namespace fs = std::filesystem;

namespace {

const std::string kProgram = "shardscope";  // a command's first word, replaced by the binary

}  // namespace

const std::string& binary_path() {
  static const std::string binary = SHARDSCOPE_BINARY;
  return binary;
}

const std::string& source_dir() {
  static const std::string source = SHARDSCOPE_SOURCE_DIR;
  return source;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

Outcome run_in(const std::string& command, const std::string& dir) {
  std::array<int, 2> out_pipe{}, err_pipe{};
  if (::pipe(out_pipe.data()) != 0 || ::pipe(err_pipe.data()) != 0) throw std::runtime_error("pipe failed");
  // A `shardscope` after the first word (`python3 -c ... > big.yaml && shardscope inspect big.yaml`) is this
  // build's binary too.
  const char* inherited = std::getenv("PATH");
  const std::string search_path = fs::path(binary_path()).parent_path().string() + ":" +
                                  (inherited != nullptr ? inherited : "/usr/bin:/bin");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setenv("PATH", search_path.c_str(), 1);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in < 0 || ::dup2(in, 0) < 0 || ::dup2(out_pipe[1], 1) < 0 || ::dup2(err_pipe[1], 2) < 0) ::_exit(126);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    ::setenv("LC_ALL", "C", 1);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  Outcome result;
  std::array<pollfd, 2> fds{pollfd{out_pipe[0], POLLIN, 0}, pollfd{err_pipe[0], POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_fds = 2;
  std::array<char, 65536> buffer{};
  while (open_fds > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("poll failed");
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        sinks[i]->append(buffer.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = without_sanitizer_noise(std::move(result.err));
  return result;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string unified_diff(const std::string& expected, const std::string& actual, const std::string& label) {
  const fs::path dir = fs::temp_directory_path() / ("shardscope_tesh_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_file(dir / "expected", expected);
  write_file(dir / "actual", actual);
  const Outcome d =
      run_in("diff -u --label 'expected " + label + "' --label 'actual " + label + "' expected actual",
             dir.string());
  fs::remove_all(dir);
  return d.out + d.err;
}

std::string command_line(const std::string& command) {
  if (command == kProgram || starts_with(command, kProgram + " ")) {
    return "'" + binary_path() + "'" + command.substr(kProgram.size());
  }
  return command;
}

}  // namespace shardscope::test
