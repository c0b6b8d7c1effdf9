// Ring building blocks shared by the collective algorithms: one actor per rank moving chunks to its right
// neighbour, step by step (N-1 rendezvous steps) or as one pipelined flow (coarse model).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace shardscope::sim {

struct RingPhase {
  std::string name;        // unique per concurrent ring (mailbox names derive from it)
  std::vector<int> ranks;  // ring order
  double chunk_bytes = 0;  // bytes moved per step per rank
  double efficiency = 1;   // calibrated bandwidth efficiency of one step's message
  int steps = 0;           // usually ranks - 1 (2(ranks - 1) for all-reduce)
  bool coarse = false;
  double coarse_latency_seconds = 0;  // extra latency added in coarse mode: (steps - 1) x path latency
};

// Runs `phase` for rank `position` (index into phase.ranks) inside the calling actor; returns when done.
// Counts the messages it sent into `messages`.
void run_ring_phase(const RingPhase& phase, std::size_t position, std::int64_t& messages);

}  // namespace shardscope::sim
