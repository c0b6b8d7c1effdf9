// The median of a few measured times: one slow moment of a shared machine moves a mean, not a median.
#pragma once

#include <algorithm>
#include <vector>

namespace shardscope::validate {

// The middle value (the mean of the two middle ones for an even count; 0 for none).
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace shardscope::validate
