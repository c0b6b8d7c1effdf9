// group_placement: closed forms of the intra (consecutive blocks of M) and inter (stride M) groups.
#include "validate/cuda/group_layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shardscope::validate {

GroupPlacement group_placement(GroupKind kind, int rank, int world_ranks, int group_size) {
  if (world_ranks < 1 || rank < 0 || rank >= world_ranks) {
    throw std::invalid_argument("group placement: rank " + std::to_string(rank) + " is not one of " +
                                std::to_string(world_ranks) + " ranks");
  }
  const int m = std::max(1, group_size);
  GroupPlacement p;
  p.key = rank;
  switch (kind) {
    case GroupKind::intra: {
      p.color = rank / m;
      const int first = p.color * m;
      p.comm_rank = rank - first;
      p.comm_size = std::min(m, world_ranks - first);
      break;
    }
    case GroupKind::inter:
      p.color = rank % m;
      p.comm_rank = rank / m;
      p.comm_size = (world_ranks - 1 - p.color) / m + 1;
      break;
    case GroupKind::global:
      p.color = 0;
      p.comm_rank = rank;
      p.comm_size = world_ranks;
      break;
  }
  return p;
}

}  // namespace shardscope::validate
