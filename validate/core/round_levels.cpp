// round_normalized_medians: levels per round (geometric means), then medians of the ratios.
#include "validate/core/round_levels.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "validate/core/median.hpp"

namespace shardscope::validate {

std::vector<double> round_normalized_medians(const std::vector<std::vector<double>>& seconds) {
  if (seconds.empty()) return {};
  const std::size_t rounds = seconds.front().size();
  for (const std::vector<double>& plan : seconds) {
    if (plan.size() != rounds) {
      throw std::invalid_argument("round-normalized medians: plans with " + std::to_string(rounds) + " and " +
                                  std::to_string(plan.size()) + " rounds");
    }
    for (double s : plan) {
      if (!(s > 0) || !std::isfinite(s))
        throw std::invalid_argument("round-normalized medians: a time of " + std::to_string(s) + " s");
    }
  }
  std::vector<double> levels(rounds, 0.0);
  for (std::size_t r = 0; r < rounds; ++r) {
    double log_sum = 0;
    for (const std::vector<double>& plan : seconds) log_sum += std::log(plan[r]);
    levels[r] = std::exp(log_sum / static_cast<double>(seconds.size()));
  }
  const double typical_level = median(levels);
  std::vector<double> out;
  for (const std::vector<double>& plan : seconds) {
    std::vector<double> ratios(rounds);
    for (std::size_t r = 0; r < rounds; ++r) ratios[r] = plan[r] / levels[r];
    out.push_back(median(ratios) * typical_level);
  }
  return out;
}

}  // namespace shardscope::validate
