// Alpha-beta cost of ring collectives over the GPU groups a sharding scope uses (intra-group, inter-group,
// global).
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/collective_kind.hpp"
#include "planner/core/execution_options.hpp"
#include "planner/core/names.hpp"

namespace shardscope {

// intra: the M consecutive GPUs of a group; inter: one GPU per group (same local index); global: all N.
enum class GroupKind { intra, inter, global };

template <>
struct EnumNames<GroupKind> {
  static constexpr NameEntry<GroupKind> table[] = {
      {GroupKind::intra, "intra", "the consecutive GPUs of one group"},
      {GroupKind::inter, "inter", "one GPU per group (same local index)"},
      {GroupKind::global, "global", "all GPUs"},
  };
};

// Ring steps of one collective among `ranks`: ranks - 1 for all-gather and reduce-scatter, 2(ranks - 1) for
// all-reduce (a reduce-scatter then an all-gather). The planner's cost and the simulator's rings both use it.
int ring_steps(CollectiveKind kind, int ranks);

// The one formula: time = latency * steps + bytes / bandwidth (STYLE: named tables + one small formula).
double alpha_beta_seconds(double alpha_seconds, int steps, double bytes_per_step, double bytes_per_second);

struct NcclTopology;  // nccl_model.hpp
struct NcclFamily;
struct NcclEstimate;

struct RingLink {
  double alpha_seconds = 0;     // worst path latency over the ring's edges
  double bytes_per_second = 0;  // bottleneck bandwidth over the ring's edges, its links shared by the family
  int ranks = 1;
  LinkClass bottleneck = LinkClass::network;  // the class of the bottleneck edge (its message efficiency)
};

class Fabric;
struct RingFamily;  // the rings of one group kind that run at once (collective_cost.cpp)

class CollectiveCost {
 public:
  CollectiveCost(const Cluster& cluster, int group_size, const Calibration& calibration,
                 CollectiveModel model = CollectiveModel::ring);

  CollectiveModel model() const { return model_; }
  // NCCL's view of a group kind's communicators (nccl model only; nullptr under the ring model): every
  // communicator's topology, and the first communicator's.
  const NcclFamily* nccl_family(GroupKind group) const {
    return nccl_[static_cast<std::size_t>(group)].get();
  }
  const NcclTopology* nccl(GroupKind group) const;

  int group_ranks(GroupKind group) const;
  const RingLink& ring(GroupKind group) const;

  // Seconds for a collective under the chosen model. Ring model: a ring collective whose *full* buffer is
  // `total_bytes` (each rank holds total/n after a reduce-scatter and before an all-gather): (n-1) steps for
  // all-gather and reduce-scatter, 2(n-1) for all-reduce, each moving total/n bytes over the bottleneck link.
  double seconds(CollectiveKind kind, GroupKind group, double total_bytes) const;
  // NCCL's pick for a collective of the group kind's communicators (nccl model only; the slowest
  // communicator's when they sit differently on the nodes), its latency at least
  // the family's worst path latency (no flow arrives before its route's latency; a calibrated network's
  // alpha can exceed NCCL's per-step constants). seconds() under the nccl model is its seconds().
  NcclEstimate nccl_collective(CollectiveKind kind, GroupKind group, double total_bytes) const;
  // Seconds of `steps` ring steps of `message_bytes` each of a `kind` collective on the group's ring (the
  // building block of hierarchical algorithms): alpha-beta with the message efficiency of the ring's
  // bottleneck class and that class's factor for the kind (the bandwidth term scales, not alpha).
  double ring_seconds(CollectiveKind kind, GroupKind group, int steps, double message_bytes) const;
  // The calibrated efficiency of one step's message of a `kind` collective on the group's ring: its
  // bottleneck class's table times the class's collective_efficiency for the kind. The nccl model's
  // collectives do not use it (NCCL runs the three kinds at about one bus bandwidth).
  double message_efficiency(CollectiveKind kind, GroupKind group, double message_bytes) const;

 private:
  RingLink make_ring(const Fabric& fabric, const Cluster& cluster, const RingFamily& family) const;
  Calibration calibration_;  // owned: callers often pass a temporary
  RingLink intra_, inter_, global_;
  CollectiveModel model_ = CollectiveModel::ring;
  std::array<std::shared_ptr<const NcclFamily>, 3> nccl_;  // by GroupKind, under the nccl model
  // Names this cost's answers in nccl_collective's per-thread memo (copies answer alike and share it).
  std::uint64_t memo_id_ = 0;
};

}  // namespace shardscope
