// The OSDP search recurrence (layers x MB x strategies) in C++, for the planner benchmarks' reference.
#include "bench/planner/osdp_recurrence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace shardscope::bench {

OsdpRecurrenceResult osdp_recurrence(const std::vector<std::vector<std::int64_t>>& mem_mb,
                                     const std::vector<std::vector<double>>& seconds, std::int64_t max_mem_mb,
                                     int strategies) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  OsdpRecurrenceResult out;
  const std::size_t layers = mem_mb.size();
  const auto width = static_cast<std::size_t>(max_mem_mb + 1);
  const auto S = static_cast<std::size_t>(strategies);
  if (layers == 0 || max_mem_mb < 0) return out;
  // f[v * S + s]: best time of layers 0..i with layer i on strategy s within v MB; marks: the argmin s'.
  std::vector<double> f(width * S, 0.0), next(width * S);
  std::vector<std::int8_t> marks(layers * width * S, -1);
  for (std::size_t i = 0; i < layers; ++i) {
    for (std::size_t v = 0; v < width; ++v) {
      for (std::size_t s = 0; s < S; ++s) {
        const std::int64_t w = mem_mb[i][s];
        if (static_cast<std::int64_t>(v) < w || !std::isfinite(seconds[i][s])) {
          next[v * S + s] = kInf;
          continue;
        }
        const double* prev = &f[(v - static_cast<std::size_t>(w)) * S];
        std::size_t arg = 0;
        for (std::size_t t = 1; t < S; ++t) {
          if (prev[t] < prev[arg]) arg = t;
        }
        next[v * S + s] = prev[arg] + seconds[i][s];
        marks[(i * width + v) * S + s] = static_cast<std::int8_t>(arg);
      }
    }
    out.cells += static_cast<std::int64_t>(width * S);
    f.swap(next);
  }
  std::size_t s = 0;
  const double* last = &f[(width - 1) * S];
  for (std::size_t t = 1; t < S; ++t) {
    if (last[t] < last[s]) s = t;
  }
  if (!std::isfinite(last[s])) return out;
  out.feasible = true;
  out.seconds = last[s];
  out.picks.assign(layers, 0);
  std::size_t v = width - 1;
  for (std::size_t i = layers; i-- > 0;) {
    out.picks[i] = static_cast<int>(s);
    const std::size_t before = marks[(i * width + v) * S + s];
    v -= static_cast<std::size_t>(mem_mb[i][s]);
    s = before;
  }
  return out;
}

OsdpInput osdp_input(const McProblem& problem, int strategies) {
  constexpr double kMiB = 1024.0 * 1024.0;
  OsdpInput in;
  in.strategies = strategies;
  double largest_transient = 0;
  for (const auto& items : problem.classes) {
    if (items.size() > static_cast<std::size_t>(strategies))
      throw std::invalid_argument("osdp_input: a class has more items than strategies");
    std::vector<std::int64_t> mem(static_cast<std::size_t>(strategies), 0);
    std::vector<double> secs(static_cast<std::size_t>(strategies), std::numeric_limits<double>::infinity());
    for (std::size_t j = 0; j < items.size(); ++j) {
      mem[j] = static_cast<std::int64_t>(std::ceil(items[j].resident_bytes / kMiB));
      secs[j] = items[j].seconds;
      largest_transient = std::max(largest_transient, items[j].transient_bytes);
    }
    in.mem_mb.push_back(std::move(mem));
    in.seconds.push_back(std::move(secs));
  }
  in.max_mem_mb = static_cast<std::int64_t>(std::floor((problem.capacity_bytes - largest_transient) / kMiB));
  return in;
}

}  // namespace shardscope::bench
