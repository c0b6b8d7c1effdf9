// Hierarchical ring: intra-group then inter-group rings (reduce-scatter), the reverse for all-gather, and
// reduce-scatter / all-reduce / all-gather for all-reduce (2D-torus order).
#include "sim/collectives/schedule.hpp"

namespace shardscope::sim {

std::vector<RankSchedule> hierarchical_ring_schedule(const ScheduleRequest& r) {
  const int n = r.ranks, m = r.group_size, groups = n / m;
  const double x = r.total_bytes;
  std::vector<RankSchedule> out(static_cast<std::size_t>(n));
  for (int rank = 0; rank < n; ++rank) {
    const int group = rank / m, local = rank % m;
    const auto intra = [&](const std::string& stage, double chunk, int steps, CollectiveKind kind) {
      return Stage{{make_phase(r, stage + ".intra" + std::to_string(group), intra_group(group, m), chunk,
                               steps, GroupKind::intra, kind)}};
    };
    const auto inter = [&](const std::string& stage, double chunk, int steps, CollectiveKind kind) {
      return Stage{{make_phase(r, stage + ".inter" + std::to_string(local), inter_group(local, m, n), chunk,
                               steps, GroupKind::inter, kind)}};
    };
    const CollectiveKind ag = CollectiveKind::all_gather, rs = CollectiveKind::reduce_scatter;
    RankSchedule& s = out[static_cast<std::size_t>(rank)];
    switch (r.kind) {
      case CollectiveKind::all_gather:
        s = {inter("s1", x / n, groups - 1, ag), intra("s2", x / m, m - 1, ag)};
        break;
      case CollectiveKind::reduce_scatter:
        s = {intra("s1", x / m, m - 1, rs), inter("s2", x / n, groups - 1, rs)};
        break;
      case CollectiveKind::all_reduce:
        s = {intra("s1", x / m, m - 1, rs), inter("s2", x / n, 2 * (groups - 1), CollectiveKind::all_reduce),
             intra("s3", x / m, m - 1, ag)};
        break;
    }
  }
  return out;
}

}  // namespace shardscope::sim
