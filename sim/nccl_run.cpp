// NcclRun: an NCCL collective's fitted flows started from engine callbacks (no actor, no mailbox).
#include "sim/nccl_run.hpp"

#include <cmath>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {

NcclRun::NcclRun(std::size_t members, std::vector<std::shared_ptr<Flow>> flows, StartFlow start_flow,
                 std::function<void(std::size_t position)> member_done)
    : members_(members),
      flows_(std::move(flows)),
      start_flow_(std::move(start_flow)),
      member_done_(std::move(member_done)),
      joined_(members, 0),
      waiting_(members),
      in_flight_(flows_.size()) {
  tag_.nccl = this;
}

void NcclRun::join(std::size_t position) {
  if (joined_[position]) return;
  joined_[position] = 1;
  if (--waiting_ > 0) return;
  if (flows_.empty()) {
    finish();
    return;
  }
  // Every flow is posted at once; each starts NCCL's latency later (its route's own latency included: the
  // flow runs without it, FlowWeight).
  const double now = sg4::Engine::get_clock();
  for (const std::shared_ptr<Flow>& f : flows_) {
    const auto bytes = static_cast<std::uint64_t>(std::llround(f->wire_bytes));
    const double delay = f->delay_seconds + f->route_latency_seconds;
    if (delay > 0) {
      simgrid::kernel::timer::Timer::set(now + delay, [this, flow = f.get(), bytes] {
        start_flow_(flow->from, flow->to, bytes, flow, &tag_);
      });
    } else {
      start_flow_(f->from, f->to, bytes, f.get(), &tag_);
    }
  }
}

void NcclRun::on_flow_completed(std::int64_t& messages) {
  ++messages;
  if (--in_flight_ == 0) finish();
}

void NcclRun::finish() {
  finished_ = true;
  for (std::size_t p = 0; p < members_; ++p) member_done_(p);
}

}  // namespace shardscope::sim
