// RingRun: a ring phase as host-to-host flows started from engine callbacks (no actor, no mailbox).
#include "sim/ring_run.hpp"

#include <cmath>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {

RingRun::RingRun(RingPhase phase, StartFlow start_flow,
                 std::function<void(std::size_t position)> position_done)
    : phase_(std::move(phase)),
      start_flow_(std::move(start_flow)),
      position_done_(std::move(position_done)),
      size_(phase_.ranks->size()),
      at_(size_, -1),
      started_(size_, 0),
      sent_(size_, 0),
      received_(size_, 0),
      tags_(size_),
      remaining_(size_) {
  // A message at efficiency e occupies the links like chunk / e bytes at full bandwidth (run_ring_phase).
  const double effective = phase_.chunk_bytes / phase_.efficiency;
  flow_steps_ = phase_.coarse ? 1 : phase_.steps;
  flow_bytes_ =
      static_cast<std::uint64_t>(std::llround(phase_.coarse ? effective * phase_.steps : effective));
  for (std::size_t p = 0; p < size_; ++p) tags_[p] = {this, p};
}

void RingRun::join(std::size_t position) {
  if (size_ <= 1 || phase_.steps <= 0) {  // nothing to move
    --remaining_;
    position_done_(position);
    return;
  }
  if (phase_.coarse && phase_.coarse_latency_seconds > 0) {
    // Pipelined: the per-step latencies are waited once, before the one flow.
    simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock() + phase_.coarse_latency_seconds,
                                       [this, position] { post(position, 0); });
    return;
  }
  post(position, 0);
}

void RingRun::post(std::size_t position, int step) {
  at_[position] = step;
  started_[position] = sent_[position] = received_[position] = 0;
  try_start(position);                        // our chunk to the right, if it has reached this step
  try_start((position + size_ - 1) % size_);  // the left neighbour's chunk to us
}

void RingRun::try_start(std::size_t sender) {
  if (at_[sender] < 0 || started_[sender] || at_[right(sender)] != at_[sender]) return;
  started_[sender] = 1;
  start_flow_((*phase_.ranks)[sender], (*phase_.ranks)[right(sender)], flow_bytes_, nullptr, &tags_[sender]);
}

void RingRun::on_flow_completed(std::size_t sender, std::int64_t& messages) {
  sent_[sender] = 1;
  received_[right(sender)] = 1;
  check_step_end(sender, messages);
  check_step_end(right(sender), messages);
}

void RingRun::check_step_end(std::size_t position, std::int64_t& messages) {
  if (!sent_[position] || !received_[position]) return;
  ++messages;
  if (at_[position] + 1 < flow_steps_) {
    post(position, at_[position] + 1);
    return;
  }
  at_[position] = flow_steps_;  // done: no flow of this run starts from or to it again
  sent_[position] = received_[position] = 0;
  --remaining_;
  position_done_(position);
}

}  // namespace shardscope::sim
