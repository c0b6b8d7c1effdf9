// Ring collective costs: bottleneck link of the ring (by link class, calibratable) and the alpha-beta
// formula.
#include "planner/cost/collective_cost.hpp"

#include <algorithm>
#include <limits>

namespace shardscope {

double alpha_beta_seconds(double alpha_seconds, int steps, double bytes_per_step, double bytes_per_second) {
  return steps * (alpha_seconds + bytes_per_step / bytes_per_second);
}

CollectiveCost::CollectiveCost(const Cluster& cluster, int group_size, const Calibration& calibration)
    : calibration_(calibration) {
  const int n = cluster.gpus();
  intra_ = make_ring(cluster, 0, 1, group_size);
  inter_ = make_ring(cluster, 0, group_size, n / group_size);
  global_ = make_ring(cluster, 0, 1, n);
}

RingLink CollectiveCost::make_ring(const Cluster& cluster, int first_rank, int stride, int count) const {
  RingLink ring;
  ring.ranks = count;
  if (count <= 1) return ring;
  ring.bytes_per_second = std::numeric_limits<double>::infinity();
  for (int i = 0; i < count; ++i) {
    const int a = first_rank + i * stride;
    const int b = first_rank + ((i + 1) % count) * stride;
    const LinkClass lc = link_class_between(cluster, a, b);
    LinkProperties p = link_properties(cluster, lc);
    if (const auto& c = calibration_.links[static_cast<std::size_t>(lc)]) {
      p.bytes_per_second = c->bytes_per_second;
      p.latency_seconds = c->alpha_seconds;
    }
    ring.bytes_per_second = std::min(ring.bytes_per_second, p.bytes_per_second);
    ring.alpha_seconds = std::max(ring.alpha_seconds, p.latency_seconds);
  }
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
  const int steps = (kind == CollectiveKind::all_reduce ? 2 : 1) * (r.ranks - 1);
  // A message at efficiency e occupies the link like bytes / e at full bandwidth.
  const double message = total_bytes / r.ranks;
  return alpha_beta_seconds(r.alpha_seconds, steps,
                            message / message_efficiency_factor(calibration_, message), r.bytes_per_second);
}

}  // namespace shardscope
