// Routing and seating of an iteration's collectives: each rank's seat in its ring, the rings' phases, the
// NCCL flow families, and the routes the platform needs.
#pragma once

#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/program/iteration_program.hpp"
#include "sim/collectives/ring_actor.hpp"
#include "sim/collectives/schedule.hpp"
#include "sim/internal/mesh_exchanges.hpp"

namespace shardscope::sim {

// Where `rank` sits in the ring it joins for a collective over `group` (ring order: consecutive ranks
// inside a group, the same local rank across groups, or all ranks), found by arithmetic, not by search.
struct RingSeat {
  int id = 0;        // which ring of the group kind
  int size = 0;      // its ranks
  int position = 0;  // this rank's index in it
  int right = 0;     // the rank it sends to
};

RingSeat seat_of(GroupKind group, int rank, int gpus, int group_size);

// Under the nccl collective model: per distinct collective of the program (kind, group kind, bytes), the
// flows of every communicator of its family under NCCL's pick, fitted together once the platform exists.
using NcclKey = std::tuple<int, int, double>;  // kind, group kind, total bytes
using NcclFamilies = std::map<NcclKey, NcclFamilyFlows>;

NcclKey nccl_key(const Task& t);

// The flow families of the program's collectives under the nccl model (none under rings).
NcclFamilies nccl_families(const IterationProgram& program, const CollectiveCost& cost,
                           bool merge_channels = true);

// The ordered (rank, right neighbour) pairs of every ring the program uses, or the pairs of every NCCL
// flow: the only routes the platform needs.
std::vector<std::pair<int, int>> routed_pairs(const IterationProgram& program, int gpus, int group_size,
                                              const NcclFamilies& nccl, bool nccl_model);

// What every rank needs to turn a collective task into a ring phase.
struct RingContext {
  const CollectiveCost& cost;
  const Calibration& calibration;
  int gpus = 0;
  int group_size = 0;
  int coarse_above = 0;
  const NcclFamilies* nccl = nullptr;           // the nccl model's fitted flows (nullptr: rings)
  const ExchangeFamilies* exchanges = nullptr;  // the mesh's all-to-alls' fitted flows (nullptr: none)
  // Each ring's ranks, built once and shared by its members' phases. SimGrid runs one actor at a time
  // (cooperative contexts in one thread), so the actors fill it without a lock.
  mutable std::map<std::pair<GroupKind, int>, std::shared_ptr<const std::vector<int>>> rings;

  // The ranks of the ring `seat` belongs to, in ring order (built on first use).
  std::shared_ptr<const std::vector<int>> ring(GroupKind group, const RingSeat& seat) const;
};

// The ring phase that a collective task runs among its ring (the same on every rank of the ring).
RingPhase ring_phase_for(const Task& task, const RingSeat& seat, const RingContext& context);

}  // namespace shardscope::sim
