// Fork-based isolation of simulations: results come back over a pipe as doubles, errors as text.
#include "sim/isolated.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <exception>
#include <string>

#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

void write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n <= 0) return;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
  return out;
}

}  // namespace

std::vector<double> run_isolated(const std::function<std::vector<double>()>& simulation) {
  int fds[2];
  if (::pipe(fds) != 0) throw SimulationError("cannot create a pipe for the simulation process");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw SimulationError("cannot fork a simulation process");
  }
  if (pid == 0) {
    // Dies with the process that waits for it (kill -9 of a sweep or `simulate`), even if that one died
    // before the request was made.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::close(fds[0]);
    char status = 'E';
    std::string payload;
    try {
      const std::vector<double> values = simulation();
      status = 'V';
      payload.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
    } catch (const std::exception& e) {
      payload = e.what();
    } catch (...) {
      payload = "unknown error";
    }
    write_all(fds[1], &status, 1);
    write_all(fds[1], payload.data(), payload.size());
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  const std::string message = read_all(fds[0]);
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (message.empty()) {
    throw SimulationError("the simulation process died (status " + std::to_string(wstatus) + ")");
  }
  if (message[0] != 'V') throw SimulationError("in the simulation process: " + message.substr(1));
  std::vector<double> values((message.size() - 1) / sizeof(double));
  std::memcpy(values.data(), message.data() + 1, values.size() * sizeof(double));
  return values;
}

}  // namespace shardscope::sim
