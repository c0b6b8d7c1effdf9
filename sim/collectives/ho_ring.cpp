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
    auto overlapped = [&](const std::string& stage) {
      return Stage{{make_phase(r, stage + ".intra" + std::to_string(group), intra_group(group, m), shard,
                               m - 1, GroupKind::intra),
                    make_phase(r, stage + ".inter" + std::to_string(local), inter_group(local, m, n), shard,
                               groups - 1, GroupKind::inter)}};
    };
    auto forward = [&](const std::string& stage) {
      return Stage{{make_phase(r, stage + ".fwd" + std::to_string(group), intra_group(group, m),
                               (groups - 1) * shard, m - 1, GroupKind::intra)}};
    };
    RankSchedule& s = out[static_cast<std::size_t>(rank)];
    switch (r.kind) {
      case CollectiveKind::all_gather:
        s = {overlapped("ag1"), forward("ag2")};
        break;
      case CollectiveKind::reduce_scatter:  // the mirror image: reduce the foreign shards first
        s = {forward("rs1"), overlapped("rs2")};
        break;
      case CollectiveKind::all_reduce:
        s = {forward("rs1"), overlapped("rs2"), overlapped("ag1"), forward("ag2")};
        break;
    }
  }
  return out;
}

}  // namespace shardscope::sim
