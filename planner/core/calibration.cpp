// Calibration lookups: the bandwidth efficiency factor of one message size (log-linear between points).
#include "planner/core/calibration.hpp"

#include <cmath>

namespace shardscope {

double message_efficiency_factor(const Calibration& calibration, double message_bytes) {
  const auto& table = calibration.message_efficiency;
  if (table.empty()) return 1.0;
  if (message_bytes <= table.front().first) return table.front().second;
  if (message_bytes >= table.back().first) return table.back().second;
  for (std::size_t i = 1; i < table.size(); ++i) {
    if (message_bytes <= table[i].first) {
      const double x0 = std::log(table[i - 1].first), x1 = std::log(table[i].first);
      const double w = (std::log(message_bytes) - x0) / (x1 - x0);
      return table[i - 1].second + w * (table[i].second - table[i - 1].second);
    }
  }
  return table.back().second;
}

}  // namespace shardscope
