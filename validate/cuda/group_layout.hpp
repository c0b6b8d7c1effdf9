// Where a rank sits in the plan's NCCL groups (plain C++, no CUDA): the colour and key of its ncclCommSplit,
// its rank and size inside the group; the same layout as the cpu backend's MPI_Comm_split groups.
#pragma once

#include "planner/cost/collective_cost.hpp"

namespace shardscope::validate {

struct GroupPlacement {
  int color = 0;      // ncclCommSplit colour: ranks with the same colour form one group
  int key = 0;        // ncclCommSplit key (the world rank: groups keep the world order)
  int comm_rank = 0;  // this rank's index in its group
  int comm_size = 1;  // ranks in its group
};

// The group of `kind` that world rank `rank` of `world_ranks` belongs to, for intra-group size M
// (`group_size`, at least 1): intra = ranks r / M, inter = ranks r mod M, global = every rank. A last intra
// group shorter than M (M does not divide the ranks) has the ranks that remain, as MPI_Comm_split gives.
GroupPlacement group_placement(GroupKind kind, int rank, int world_ranks, int group_size);

}  // namespace shardscope::validate
