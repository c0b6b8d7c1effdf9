// Collective schedules: per rank, a sequence of stages, each a set of ring phases and point-to-point flows
// run concurrently.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "planner/core/cluster.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/cost/nccl_model.hpp"
#include "sim/collectives/ring_actor.hpp"

namespace shardscope::sim {

// One pipelined point-to-point transfer (NCCL's channels and trees): `wire_bytes` to the receiver's mailbox,
// starting `delay_seconds` after the stage begins (every flow of a collective is posted at once).
struct Flow {
  std::string mailbox;
  int from = 0;
  int to = 0;
  double bytes = 0;          // the payload this edge carries
  double wire_bytes = 0;     // what the links carry (bytes / the protocol's efficiency)
  double delay_seconds = 0;  // NCCL's latency less the route's own
  // NCCL channels this flow stands for: their flows between the same two ranks take the same route, so
  // one flow carries all their bytes and shares every link as that many flows would (the iteration
  // simulator weights it, sim/flow_weight.hpp).
  int channels = 1;
  double route_latency_seconds = 0;  // its route's latency (fit_nccl_flows)
};

struct Stage {
  Stage() = default;
  explicit Stage(std::vector<RingPhase> ring_phases) : phases(std::move(ring_phases)) {}
  std::vector<RingPhase> phases;             // run at the same time by this rank
  std::vector<std::shared_ptr<Flow>> flows;  // ... and these, where this rank sends or receives
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
  const Cluster* cluster = nullptr;      // the (resized) cluster, for algorithms that read its NICs
  const CollectiveCost* cost = nullptr;  // the calibrated rings: each step's message efficiency (none: 1)
  // nccl: the communicators that run (global: one over the ranks; intra / inter: the planner's family of
  // the group kind, which needs `cost` under the nccl model)
  GroupKind nccl_group = GroupKind::global;
};

// One file per algorithm (ring.cpp is the building block they share).
std::vector<RankSchedule> ring_schedule(const ScheduleRequest& request);
std::vector<RankSchedule> hierarchical_ring_schedule(const ScheduleRequest& request);
std::vector<RankSchedule> ho_ring_schedule(const ScheduleRequest& request);

// NCCL (nccl.cpp): NCCL's pick for the collective (nccl_model.hpp) as flows, a ring per channel or a
// double binary tree; `flows` lists every flow once, in a fixed order, for fit_nccl_flows.
struct NcclSchedule {
  NcclEstimate estimate;
  std::vector<RankSchedule> ranks;
  std::vector<std::shared_ptr<Flow>> flows;
};
NcclSchedule nccl_schedule(const ScheduleRequest& request);

// Sets every flow's wire bytes and delay so that, alone on `platform`, the collective takes exactly NCCL's
// estimate: each flow's rate is its route's tightest link share (the flows crossing it at once, which is
// what max-min sharing gives the slowest flows, all carrying equal bytes), the protocol's efficiency is
// the slowest flow's time over NCCL's bandwidth term, and each flow starts NCCL's latency less its route's
// later. Returns the efficiency (wire = bytes / efficiency).
class Platform;
double fit_nccl_flows(NcclSchedule& schedule, const Platform& platform);
// The same for any set of flows that run at once under one estimate (a family of communicators).
double fit_nccl_flows(const std::vector<std::shared_ptr<Flow>>& flows, const NcclEstimate& estimate,
                      const Platform& platform);

// Every communicator of a family at once (the planner's group kinds; each communicator on its own members,
// as it sits on the nodes, its topology knowing how the family shares the NICs), all under one estimate:
// `copies[c]` are communicator c's flows, `flows` all of them in a fixed order, for fit_nccl_flows, which
// makes the family take the estimate when it runs alone.
struct NcclFamilyFlows {
  NcclEstimate estimate;
  std::vector<std::vector<std::shared_ptr<Flow>>> copies;
  std::vector<std::shared_ptr<Flow>> flows;
};
// `merge_channels`: each communicator's channels between the same two ranks as one flow (Flow::channels).
NcclFamilyFlows nccl_family_flows(const NcclFamily& family, CollectiveKind kind, double total_bytes,
                                  const NcclEstimate& estimate, bool merge_channels = true);

// Helpers shared by the builders. A phase is priced as the collective `kind` it runs (an all-reduce's
// reduce-scatter phase at the reduce-scatter factor of its bottleneck class).
RingPhase make_phase(const ScheduleRequest& r, const std::string& name, std::vector<int> ranks,
                     double chunk_bytes, int steps, GroupKind group, CollectiveKind kind);
std::vector<int> intra_group(int group, int group_size);
std::vector<int> inter_group(int local, int group_size, int ranks);

}  // namespace shardscope::sim
