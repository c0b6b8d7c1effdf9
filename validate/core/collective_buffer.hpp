// How many float32 elements a collective task's buffer holds per rank, shared by every backend so that all of
// them move the same bytes for the same task.
#pragma once

#include <cstdint>

namespace shardscope::validate {

// Elements per rank of a collective whose full buffer is `total_bytes` of float32 over `ranks`: the total
// rounded up to a multiple of the ranks (at least one element each).
std::int64_t elements_per_rank(double total_bytes, int ranks);

}  // namespace shardscope::validate
