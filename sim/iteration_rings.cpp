// Ring seats by arithmetic, ring phases, NCCL flow families and the routes an iteration's flows take.
#include "sim/internal/iteration_rings.hpp"

#include <set>

namespace shardscope::sim {
namespace {

// The ranks of the ring `seat` belongs to, in ring order.
std::vector<int> ring_ranks(GroupKind group, const RingSeat& seat, int gpus, int group_size) {
  std::vector<int> ranks;
  ranks.reserve(static_cast<std::size_t>(seat.size));
  switch (group) {
    case GroupKind::intra:
      for (int l = 0; l < group_size; ++l) ranks.push_back(seat.id * group_size + l);
      break;
    case GroupKind::inter:
      for (int r = seat.id; r < gpus; r += group_size) ranks.push_back(r);
      break;
    case GroupKind::global:
      for (int r = 0; r < gpus; ++r) ranks.push_back(r);
      break;
  }
  return ranks;
}

}  // namespace

RingSeat seat_of(GroupKind group, int rank, int gpus, int group_size) {
  switch (group) {
    case GroupKind::intra: {
      const int position = rank % group_size, first = rank - position;
      return {rank / group_size, group_size, position, first + (position + 1) % group_size};
    }
    case GroupKind::inter: {
      const int size = gpus / group_size, position = rank / group_size;
      return {rank % group_size, size, position, rank % group_size + (position + 1) % size * group_size};
    }
    case GroupKind::global:
      break;
  }
  return {0, gpus, rank, (rank + 1) % gpus};
}

NcclKey nccl_key(const Task& t) {
  return {static_cast<int>(t.kind), static_cast<int>(t.group), t.total_bytes};
}

NcclFamilies nccl_families(const IterationProgram& program, const CollectiveCost& cost, bool merge_channels) {
  NcclFamilies families;
  if (cost.model() != CollectiveModel::nccl) return families;
  for (const Task& t : program.tasks) {
    if (t.total_bytes <= 0 || cost.group_ranks(t.group) <= 1 || families.count(nccl_key(t)) > 0) continue;
    families.emplace(nccl_key(t),
                     nccl_family_flows(*cost.nccl_family(t.group), t.kind, t.total_bytes,
                                       cost.nccl_collective(t.kind, t.group, t.total_bytes), merge_channels));
  }
  return families;
}

// The ordered (rank, right neighbour) pairs of every ring the program uses, or the pairs of every NCCL
// flow: the only routes the platform needs.
std::vector<std::pair<int, int>> routed_pairs(const IterationProgram& program, int gpus, int group_size,
                                              const NcclFamilies& nccl, bool nccl_model) {
  std::set<std::pair<int, int>> pairs;
  if (nccl_model) {
    for (const auto& [key, family] : nccl) {
      for (const auto& f : family.flows) pairs.emplace(f->from, f->to);
    }
    return {pairs.begin(), pairs.end()};
  }
  std::set<GroupKind> groups;
  for (const Task& t : program.tasks) {
    if (t.total_bytes > 0) groups.insert(t.group);
  }
  for (GroupKind g : groups) {
    for (int r = 0; r < gpus; ++r) {
      const RingSeat seat = seat_of(g, r, gpus, group_size);
      if (seat.size > 1) pairs.emplace(r, seat.right);
    }
  }
  return {pairs.begin(), pairs.end()};
}

std::shared_ptr<const std::vector<int>> RingContext::ring(GroupKind group, const RingSeat& seat) const {
  auto& ranks = rings[{group, seat.id}];
  if (!ranks) ranks = std::make_shared<const std::vector<int>>(ring_ranks(group, seat, gpus, group_size));
  return ranks;
}

RingPhase ring_phase_for(const Task& task, const RingSeat& seat, const RingContext& context) {
  RingPhase phase;
  phase.ranks = context.ring(task.group, seat);
  phase.chunk_bytes = task.total_bytes / static_cast<double>(seat.size);
  phase.efficiency = context.cost.message_efficiency(task.kind, task.group, phase.chunk_bytes);
  phase.steps = ring_steps(task.kind, seat.size);
  phase.coarse = coarse_ring(static_cast<std::size_t>(seat.size), context.coarse_above);
  phase.coarse_latency_seconds =
      phase.steps > 1 ? (phase.steps - 1) * context.cost.ring(task.group).alpha_seconds : 0;
  return phase;
}

}  // namespace shardscope::sim
