// SubprocessSet: several children at once, and the wait until any of them has finished.
#include <algorithm>

#include "process/subprocess.hpp"

namespace shardscope::process {

Subprocess& SubprocessSet::start(SpawnRequest request) {
  running_.push_back(std::make_unique<Subprocess>(std::move(request)));
  return *running_.back();
}

std::vector<std::unique_ptr<Subprocess>> SubprocessSet::finished_now() {
  std::vector<std::unique_ptr<Subprocess>> done;
  for (std::unique_ptr<Subprocess>& child : running_) {
    if (child->poll()) done.push_back(std::move(child));
  }
  std::erase(running_, nullptr);
  return done;
}

std::vector<std::unique_ptr<Subprocess>> SubprocessSet::wait_any(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::chrono::milliseconds pause(1);
  for (;;) {
    std::vector<std::unique_ptr<Subprocess>> done = finished_now();
    const auto now = std::chrono::steady_clock::now();
    if (!done.empty() || running_.empty() || now >= deadline) return done;
    std::vector<int> fds;
    for (const std::unique_ptr<Subprocess>& child : running_) {
      fds.push_back(child->output_fd());
      fds.push_back(child->errors_fd());
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    wait_readable(fds, std::max(std::chrono::milliseconds(1), std::min(pause, left)));
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

void SubprocessSet::kill_all() {
  for (std::unique_ptr<Subprocess>& child : running_) child->kill();
  running_.clear();
}

}  // namespace shardscope::process
