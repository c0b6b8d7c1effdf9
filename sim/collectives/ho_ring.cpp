// HO-Ring (PaRO section 3.4): each rank sends its shard on the intra-group and the inter-group ring at the
// same time; afterwards one intra-group ring forwards the shards that came over the inter-group ring.
#include "sim/collectives/schedule.hpp"

namespace shardscope::sim {

std::vector<RankSchedule> ho_ring_schedule(const ScheduleRequest& r) {
  const int n = r.ranks, m = r.group_size, groups = n / m;
  const double shard = r.total_bytes / n;
  std::vector<RankSchedule> out(static_cast<std::size_t>(n));
  for (int rank = 0; rank < n; ++rank) {
    const int group = rank / m, local = rank % m;
    // An all-reduce's rs stages run at the reduce-scatter factor, its ag stages at the all-gather's.
    auto overlapped = [&](const std::string& stage, CollectiveKind kind) {
      return Stage{{make_phase(r, stage + ".intra" + std::to_string(group), intra_group(group, m), shard,
                               m - 1, GroupKind::intra, kind),
                    make_phase(r, stage + ".inter" + std::to_string(local), inter_group(local, m, n), shard,
                               groups - 1, GroupKind::inter, kind)}};
    };
    auto forward = [&](const std::string& stage, CollectiveKind kind) {
      return Stage{{make_phase(r, stage + ".fwd" + std::to_string(group), intra_group(group, m),
                               (groups - 1) * shard, m - 1, GroupKind::intra, kind)}};
    };
    const CollectiveKind ag = CollectiveKind::all_gather, rs = CollectiveKind::reduce_scatter;
    RankSchedule& s = out[static_cast<std::size_t>(rank)];
    switch (r.kind) {
      case CollectiveKind::all_gather:
        s = {overlapped("ag1", ag), forward("ag2", ag)};
        break;
      case CollectiveKind::reduce_scatter:  // the mirror image: reduce the foreign shards first
        s = {forward("rs1", rs), overlapped("rs2", rs)};
        break;
      case CollectiveKind::all_reduce:
        s = {forward("rs1", rs), overlapped("rs2", rs), overlapped("ag1", ag), forward("ag2", ag)};
        break;
    }
  }
  return out;
}

}  // namespace shardscope::sim
