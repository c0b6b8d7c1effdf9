// Ring building blocks shared by the collective algorithms: one actor per rank moving chunks to its right
// neighbour, step by step (N-1 rendezvous steps) or as one pipelined flow (coarse model).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exchange/simulation_job.hpp"  // kCoarseAboveRanks

namespace simgrid::s4u {
class Host;
}

namespace shardscope::sim {

// The one rule choosing a ring's model by its size, for `simulate` and `collective` alike: a ring of more
// than `coarse_above` ranks (default kCoarseAboveRanks) runs the coarse model, one pipelined flow per ring
// edge (N flows), a smaller one the step model (N - 1 rendezvous steps of N transfers: N^2 messages).
// Both equal the alpha-beta formula uncontended; the step model costs quadratic simulation time.
inline bool coarse_ring(std::size_t ring_ranks, int coarse_above) {
  return ring_ranks > static_cast<std::size_t>(coarse_above < 0 ? 0 : coarse_above);
}

struct RingPhase {
  std::string name;                               // unique per concurrent ring (mailbox names derive from it)
  std::shared_ptr<const std::vector<int>> ranks;  // ring order (shared: a ring of N ranks is N ints, not N^2)
  double chunk_bytes = 0;                         // bytes moved per step per rank
  double efficiency = 1;                          // calibrated bandwidth efficiency of one step's message
  int steps = 0;                                  // usually ranks - 1 (2(ranks - 1) for all-reduce)
  bool coarse = false;
  double coarse_latency_seconds = 0;  // extra latency added in coarse mode: (steps - 1) x path latency
};

// Runs `phase` for rank `position` (index into phase.ranks) inside the calling actor; returns when done.
// Counts the messages it sent into `messages`.
void run_ring_phase(const RingPhase& phase, std::size_t position, std::int64_t& messages);

}  // namespace shardscope::sim
