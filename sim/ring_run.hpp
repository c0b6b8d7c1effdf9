// RingRun: one run of a ring phase driven by events instead of actors: flows between hosts start when both
// ends have reached the step (as mailbox rendezvous would), and each rank is told when its part is done.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/collectives/ring_actor.hpp"

namespace shardscope::sim {

class RingRun;
struct Flow;
class NcclRun;

// What a flow's data points at, so that its completion reaches its run: sent by ring position `index` of a
// ring run, or one of an NCCL collective's flows.
struct ActivityTag {
  RingRun* run = nullptr;
  std::size_t index = 0;
  NcclRun* nccl = nullptr;
};

// The same model as run_ring_phase (ring_actor.hpp), without an actor per rank: per step a rank's chunk
// leaves for its right neighbour once both have reached that step, and a rank's step ends when its chunk has
// left and its left neighbour's chunk has arrived; the coarse model waits its extra latency, then sends one
// flow per ring edge carrying all steps' data. The owner starts each flow (start_flow: sender and receiver
// rank, bytes, the NCCL flow it is (none here), the tag its data must point at) and reports its completion
// through on_flow_completed.
class RingRun {
 public:
  using StartFlow = std::function<void(int from_rank, int to_rank, std::uint64_t bytes, const Flow* nccl_flow,
                                       ActivityTag* tag)>;
  // `position_done(position)` is called once per ring position when its part ends (possibly at once,
  // from join, for a ring of one rank).
  RingRun(RingPhase phase, StartFlow start_flow, std::function<void(std::size_t position)> position_done);

  // Rank at `position` reaches the phase (after its extra latency in the coarse model).
  void join(std::size_t position);
  // A flow of this run completed; `messages` counts each rank's ended steps (as run_ring_phase does).
  void on_flow_completed(std::size_t sender, std::int64_t& messages);
  bool finished() const { return remaining_ == 0; }

 private:
  void post(std::size_t position, int step);
  void try_start(std::size_t sender);
  void check_step_end(std::size_t position, std::int64_t& messages);
  std::size_t right(std::size_t p) const { return (p + 1) % size_; }

  RingPhase phase_;
  StartFlow start_flow_;
  std::function<void(std::size_t)> position_done_;
  std::size_t size_ = 0;
  int flow_steps_ = 0;            // steps (step model) or 1 (coarse model)
  std::uint64_t flow_bytes_ = 0;  // bytes per flow
  std::vector<int> at_;           // the step each position has posted (-1: not yet)
  std::vector<unsigned char> started_, sent_, received_;
  std::vector<ActivityTag> tags_;
  std::size_t remaining_ = 0;
};

}  // namespace shardscope::sim
