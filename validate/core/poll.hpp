// Waiting with a deadline on work another agent finishes (an MPI request, a CUDA event): the backends' one
// polling rule, so that no wait can hang a rank.
#pragma once

#include <chrono>
#include <thread>

namespace shardscope::validate {

// What a waiting thread does between two calls once the first 200 us of spinning are over.
enum class PollRest {
  // Sleep 20 us: another thread of the rank (the compute stream) needs the core. Work that progresses only
  // when polled (MPI's non-blocking collectives) then moves at the pace of those sleeps.
  sleep,
  // Yield the core to whatever else is runnable (the rank's compute thread too), else call again at once:
  // MPI's collectives move at full pace, and a compute thread beside the wait still gets the core. The
  // cpu-mpi backend and every micro-benchmark loop poll this way, so `bench` times what `run` runs.
  yield,
};

// Calls `ready()` until it returns true (then true) or `timeout_seconds` have passed (then false): spins for
// the first 200 us, where short waits end, then rests as `rest` says between calls. `ready` may throw to end
// the wait with its own error.
template <typename Ready>
bool poll_until(Ready ready, double timeout_seconds, PollRest rest = PollRest::sleep) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    if (ready()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline) return false;
    if (now - start <= std::chrono::microseconds(200)) continue;
    if (rest == PollRest::sleep)
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    else
      std::this_thread::yield();
  }
}

}  // namespace shardscope::validate
