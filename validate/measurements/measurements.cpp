// Measurements: what the samples imply (flops, ring steps, per-iteration means) and the contract's names.
#include "validate/measurements/measurements.hpp"

#include <algorithm>

namespace shardscope {

std::vector<double> iteration_samples(const MeasuredIteration& iteration) {
  std::vector<double> mean;
  const auto& ranks = iteration.measured_seconds_per_rank;
  for (const std::vector<double>& times : ranks) {
    mean.resize(std::max(mean.size(), times.size()), 0.0);
    for (std::size_t i = 0; i < times.size(); ++i) mean[i] += times[i] / static_cast<double>(ranks.size());
  }
  return mean;
}

double gemm_flops(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(batch * m) * static_cast<double>(n * k);
}

double ring_message_bytes(const CollectiveSample& sample) { return sample.bytes / sample.group_size; }

int sample_ring_steps(const CollectiveSample& sample) { return ring_steps(sample.op, sample.group_size); }

std::string contract_name(GroupKind group) { return group == GroupKind::global ? "all" : to_string(group); }

std::string contract_name(CollectiveKind op) {
  std::string name = to_string(op);  // "all-reduce" -> "all_reduce"
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace shardscope
