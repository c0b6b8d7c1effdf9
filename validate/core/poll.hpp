// Waiting with a deadline on work another agent finishes (an MPI request, a CUDA event): the backends' one
// polling rule, so that no wait can hang a rank.
#pragma once

#include <chrono>
#include <thread>

namespace shardscope::validate {

// Calls `ready()` until it returns true (then true) or `timeout_seconds` have passed (then false): spins for
// the first 200 us, where short waits end, then sleeps 20 us between calls so that the rank's other thread
// keeps the core. `ready` may throw to end the wait with its own error.
template <typename Ready>
bool poll_until(Ready ready, double timeout_seconds) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    if (ready()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline) return false;
    if (now - start > std::chrono::microseconds(200))
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

}  // namespace shardscope::validate
