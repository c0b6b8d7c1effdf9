// elements_per_rank: bytes / 4 rounded up, spread over the ranks.
#include "validate/core/collective_buffer.hpp"

#include <algorithm>
#include <cmath>

namespace shardscope::validate {

std::int64_t elements_per_rank(double total_bytes, int ranks) {
  const double elements = std::ceil(std::max(0.0, total_bytes) / 4);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(elements / std::max(1, ranks))));
}

}  // namespace shardscope::validate
