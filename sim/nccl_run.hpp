// NcclRun: one NCCL collective of one communicator driven by events: once every member has joined, its
// fitted flows start (each after its delay), and every member is done when the last flow has arrived.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/ring_run.hpp"

namespace shardscope::sim {

class NcclRun {
 public:
  using StartFlow = RingRun::StartFlow;
  // `flows`: this communicator's flows, fitted with its family (fit_nccl_flows); `members`: its ranks, in
  // the order positions refer to; `member_done(position)` is called once per member when the collective
  // ends (at once, from join, when it has no flow).
  NcclRun(std::size_t members, std::vector<std::shared_ptr<Flow>> flows, StartFlow start_flow,
          std::function<void(std::size_t position)> member_done);

  // Member `position` reaches the collective; the flows start when the last member has.
  void join(std::size_t position);
  // One of its flows arrived; `messages` counts the flows.
  void on_flow_completed(std::int64_t& messages);
  bool finished() const { return finished_; }
  ActivityTag* tag() { return &tag_; }

 private:
  void finish();

  std::size_t members_ = 0;
  std::vector<std::shared_ptr<Flow>> flows_;
  StartFlow start_flow_;
  std::function<void(std::size_t)> member_done_;
  std::vector<unsigned char> joined_;
  std::size_t waiting_ = 0;    // members not joined yet
  std::size_t in_flight_ = 0;  // flows not arrived yet
  bool finished_ = false;
  ActivityTag tag_;
};

}  // namespace shardscope::sim
