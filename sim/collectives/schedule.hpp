// Collective schedules: per rank, a sequence of stages, each a set of ring phases run concurrently.
#pragma once

#include <vector>

#include "planner/cost/collective_cost.hpp"
#include "sim/collectives/ring_actor.hpp"

namespace shardscope::sim {

struct Stage {
  std::vector<RingPhase> phases;  // run at the same time by this rank
};
using RankSchedule = std::vector<Stage>;

struct ScheduleRequest {
  CollectiveKind kind;
  double total_bytes;
  int ranks;                             // N
  int group_size;                        // M (hierarchical algorithms)
  int coarse_above;                      // rings with more ranks run the coarse model (coarse_ring)
  std::string tag;                       // prefix making mailbox names unique per concurrent copy
  std::vector<double> latency_by_group;  // path latency of [intra, inter, global] rings (coarse mode)
  const CollectiveCost* cost = nullptr;  // the calibrated rings: each step's message efficiency (none: 1)
};

// One file per algorithm (ring.cpp is the building block they share).
std::vector<RankSchedule> ring_schedule(const ScheduleRequest& request);
std::vector<RankSchedule> hierarchical_ring_schedule(const ScheduleRequest& request);
std::vector<RankSchedule> ho_ring_schedule(const ScheduleRequest& request);

// Helpers shared by the builders.
RingPhase make_phase(const ScheduleRequest& r, const std::string& name, std::vector<int> ranks,
                     double chunk_bytes, int steps, GroupKind group);
std::vector<int> intra_group(int group, int group_size);
std::vector<int> inter_group(int local, int group_size, int ranks);

}  // namespace shardscope::sim
