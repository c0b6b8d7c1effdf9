// Ring collective costs: the bottleneck link of a family of concurrent rings on the calibrated fabric, and
// the alpha-beta formula.
#include "planner/cost/collective_cost.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/core/fabric.hpp"
#include "planner/cost/nccl_calibration.hpp"
#include "planner/cost/nccl_model.hpp"

namespace shardscope {

int ring_steps(CollectiveKind kind, int ranks) {
  return (kind == CollectiveKind::all_reduce ? 2 : 1) * (ranks - 1);
}

double alpha_beta_seconds(double alpha_seconds, int steps, double bytes_per_step, double bytes_per_second) {
  return steps * (alpha_seconds + bytes_per_step / bytes_per_second);
}

// The rings of one group kind that run at once when every group executes the collective: intra, one ring per
// group of M consecutive ranks; inter, one ring per position in a group (stride M); global, one ring.
struct RingFamily {
  int rings = 1;      // rings running at once
  int ring_step = 0;  // rank offset from one ring's first member to the next ring's
  int stride = 1;     // rank offset between consecutive members of a ring
  int ranks = 1;      // members of each ring
};

namespace {

// Calls f(a, b) for every edge (rank a sends to rank b) of every ring of the family.
template <typename F>
void for_each_edge(const RingFamily& family, const F& f) {
  for (int r = 0; r < family.rings; ++r) {
    const int first = r * family.ring_step;
    for (int i = 0; i < family.ranks; ++i) {
      f(first + i * family.stride, first + ((i + 1) % family.ranks) * family.stride);
    }
  }
}

std::uint64_t direction_key(const FabricHop& hop) { return (hop.link << 1) | (hop.up ? 1u : 0u); }

// The rings of recent fabrics and group sizes: counting flows is linear in the GPUs (a second at 800000
// GPUs), and the planner builds a cost model per batch size and strategy on one fabric.
struct RingCache {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, std::array<RingLink, 3>> rings;
};

RingCache& ring_cache() {
  static RingCache cache;
  return cache;
}

// The NCCL families of recent fabrics, GPU names and group sizes: one topology per communicator, as many
// as there are groups, built once per cluster rather than per batch size and strategy.
using NcclFamilies = std::array<std::shared_ptr<const NcclFamily>, 3>;
struct NcclCache {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, NcclFamilies> families;
};

NcclCache& nccl_cache() {
  static NcclCache cache;
  return cache;
}

// NCCL's view of the three families. Keyed by what it reads: the nominal links (NCCL's ladder and channels
// come from them), the GPU's name, the group size and each class's calibrated rate (a class calibrated at its
// nominal rate prices otherwise than one left to the ladder, so the calibrated fabric's key would not do).
NcclFamilies nccl_families(const Cluster& cluster, const Calibration& calibration, int group_size) {
  std::string nccl_key = Fabric(cluster, Calibration{}).key() + cluster.gpu.name;
  for (const std::optional<LinkCalibration>& link : calibration.links) {
    char rate[32] = " -";
    if (link) std::snprintf(rate, sizeof rate, " %a", link->bytes_per_second);
    nccl_key += rate;
  }
  const std::pair<std::string, int> key{nccl_key, group_size};
  NcclCache& cache = nccl_cache();
  {
    const std::lock_guard<std::mutex> lock(cache.mutex);
    const auto it = cache.families.find(key);
    if (it != cache.families.end()) return it->second;
  }
  NcclFamilies out;
  for (const GroupKind g : {GroupKind::intra, GroupKind::inter, GroupKind::global}) {
    out[static_cast<std::size_t>(g)] = std::make_shared<const NcclFamily>(
        nccl_family(cluster, nccl_group_of(g, cluster.gpus(), group_size), calibration));
  }
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.families.size() >= 64) cache.families.clear();
  cache.families.emplace(key, out);
  return out;
}

}  // namespace

namespace {
std::atomic<std::uint64_t> next_memo_id{1};  // CollectiveCost's memo ids
}  // namespace

CollectiveCost::CollectiveCost(const Cluster& cluster, int group_size, const Calibration& calibration,
                               CollectiveModel model)
    : calibration_(calibration), model_(model), memo_id_(next_memo_id.fetch_add(1)) {
  const int n = cluster.gpus();
  const Fabric fabric(cluster, calibration);
  const std::pair<std::string, int> key{fabric.key(), group_size};
  // The same three families, as NCCL communicators.
  if (model_ == CollectiveModel::nccl) nccl_ = nccl_families(cluster, calibration, group_size);
  RingCache& cache = ring_cache();
  {
    const std::lock_guard<std::mutex> lock(cache.mutex);
    const auto it = cache.rings.find(key);
    if (it != cache.rings.end()) {
      intra_ = it->second[0];
      inter_ = it->second[1];
      global_ = it->second[2];
      return;
    }
  }
  intra_ = make_ring(fabric, cluster, RingFamily{n / group_size, group_size, 1, group_size});
  inter_ = make_ring(fabric, cluster, RingFamily{group_size, 1, group_size, n / group_size});
  global_ = make_ring(fabric, cluster, RingFamily{1, 0, 1, n});
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.rings.size() >= 64) cache.rings.clear();
  cache.rings.emplace(key, std::array<RingLink, 3>{intra_, inter_, global_});
}

// The family's rings run at once (every group executes the collective): each direction of each link is
// shared by the flows of every ring edge that crosses it, so an edge gets the least of capacity / flows
// over its path (a NIC shared by the rings that cross it at once, an oversubscribed leaf uplink), and its
// latency is the path's summed latency. The ring moves at its slowest edge.
RingLink CollectiveCost::make_ring(const Fabric& fabric, const Cluster& cluster,
                                   const RingFamily& family) const {
  RingLink ring;
  ring.ranks = family.ranks;
  if (family.ranks <= 1) return ring;
  std::unordered_map<std::uint64_t, int> flows;
  std::vector<FabricHop> hops;
  for_each_edge(family, [&](int a, int b) {
    hops.clear();
    fabric.path(a, b, hops);
    for (const FabricHop& hop : hops) ++flows[direction_key(hop)];
  });
  ring.bytes_per_second = std::numeric_limits<double>::infinity();
  for_each_edge(family, [&](int a, int b) {
    hops.clear();
    fabric.path(a, b, hops);
    double bytes_per_second = std::numeric_limits<double>::infinity(), latency_seconds = 0;
    for (const FabricHop& hop : hops) {
      const FabricLink link = fabric.link(hop.link);
      bytes_per_second = std::min(bytes_per_second, link.bytes_per_second / flows[direction_key(hop)]);
      latency_seconds += link.latency_seconds;
    }
    const LinkClass lc = link_class_between(cluster, a, b);
    // The bottleneck's class gives the ring its message efficiency; on a tie, the class further out.
    if (bytes_per_second < ring.bytes_per_second ||
        (bytes_per_second == ring.bytes_per_second && lc > ring.bottleneck)) {
      ring.bytes_per_second = bytes_per_second;
      ring.bottleneck = lc;
    }
    ring.alpha_seconds = std::max(ring.alpha_seconds, latency_seconds);
  });
  return ring;
}

int CollectiveCost::group_ranks(GroupKind group) const { return ring(group).ranks; }

const RingLink& CollectiveCost::ring(GroupKind group) const {
  switch (group) {
    case GroupKind::intra:
      return intra_;
    case GroupKind::inter:
      return inter_;
    case GroupKind::global:
      return global_;
  }
  return global_;
}

double CollectiveCost::seconds(CollectiveKind kind, GroupKind group, double total_bytes) const {
  const RingLink& r = ring(group);
  if (r.ranks <= 1 || total_bytes <= 0) return 0;
  if (model_ == CollectiveModel::nccl) return nccl_collective(kind, group, total_bytes).seconds();
  return ring_seconds(kind, group, ring_steps(kind, r.ranks), total_bytes / r.ranks);
}

const NcclTopology* CollectiveCost::nccl(GroupKind group) const {
  const NcclFamily* family = nccl_family(group);
  return family == nullptr ? nullptr : &family->copies.front();
}

namespace {

// nccl_collective's answers, per thread (the search prices the same few collectives thousands of times from
// several threads): keyed by the cost's memo id, the kind, the group kind and the bytes.
struct NcclMemoKey {
  std::uint64_t cost = 0;
  int kind = 0, group = 0;
  double bytes = 0;
  bool operator==(const NcclMemoKey&) const = default;
};
struct NcclMemoHash {
  std::size_t operator()(const NcclMemoKey& k) const {
    const std::size_t h = std::hash<double>()(k.bytes) ^ (k.cost * 0x9e3779b97f4a7c15ULL);
    return h ^ static_cast<std::size_t>(k.kind * 4 + k.group) * 0x100000001b3ULL;
  }
};
constexpr std::size_t kNcclMemoEntries = 4096;  // cleared beyond this (a thread's working set is a few dozen)
}  // namespace

NcclEstimate CollectiveCost::nccl_collective(CollectiveKind kind, GroupKind group, double total_bytes) const {
  thread_local std::unordered_map<NcclMemoKey, NcclEstimate, NcclMemoHash> memo;
  const NcclMemoKey key{memo_id_, static_cast<int>(kind), static_cast<int>(group), total_bytes};
  if (const auto found = memo.find(key); found != memo.end()) return found->second;
  const NcclFamily* family = nccl_family(group);
  if (family == nullptr) throw std::logic_error("nccl_collective needs the nccl collective model");
  NcclEstimate e = nccl_family_pick(*family, kind, total_bytes);
  e.latency_seconds = std::max(e.latency_seconds, ring(group).alpha_seconds);
  if (memo.size() >= kNcclMemoEntries) memo.clear();
  memo.emplace(key, e);
  return e;
}

double CollectiveCost::message_efficiency(CollectiveKind kind, GroupKind group, double message_bytes) const {
  const LinkClass bottleneck = ring(group).bottleneck;
  return message_efficiency_factor(calibration_, bottleneck, message_bytes) *
         collective_efficiency_factor(calibration_, bottleneck, kind);
}

double CollectiveCost::ring_seconds(CollectiveKind kind, GroupKind group, int steps,
                                    double message_bytes) const {
  const RingLink& r = ring(group);
  if (r.ranks <= 1 || steps <= 0) return 0;  // an empty message still pays its steps' latency
  // A message at efficiency e occupies the link like bytes / e at full bandwidth.
  return alpha_beta_seconds(r.alpha_seconds, steps,
                            message_bytes / message_efficiency(kind, group, message_bytes),
                            r.bytes_per_second);
}

}  // namespace shardscope
