// CollectiveKind: the three collectives the planner prices (a core type: calibrations carry a factor per
// kind).
#pragma once

#include "planner/core/names.hpp"

namespace shardscope {

enum class CollectiveKind { all_gather, reduce_scatter, all_reduce };

template <>
struct EnumNames<CollectiveKind> {
  static constexpr NameEntry<CollectiveKind> table[] = {
      {CollectiveKind::all_gather, "all-gather", "every rank ends with the whole buffer"},
      {CollectiveKind::reduce_scatter, "reduce-scatter", "every rank ends with its reduced shard"},
      {CollectiveKind::all_reduce, "all-reduce", "every rank ends with the whole reduced buffer"},
  };
};

}  // namespace shardscope
