// Memory sweep: each micro-batch's Pareto front, turned into throughput and merged by memory.
#include "planner/search/memory_sweep.hpp"

#include <algorithm>
#include <limits>

#include "planner/search/batch_scan.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {

MemorySweep memory_sweep(const ValidScenario& scenario, const Calibration& calibration, int threads,
                         const PlanObserver* observer) {
  const SearchSpace space = product_space(scenario);
  FrontOptions options;
  options.max_points = std::numeric_limits<int>::max();
  options.quantum_of_limit = true;  // a breakpoint near the limit is rounded as the search rounds there
  options.threads = threads;
  std::vector<MemoryBreakpoint> points;
  for (const std::int64_t micro_batch : batch_candidates(scenario)) {
    if (observer != nullptr && observer->cancelled()) throw PlanCancelled();
    const int steps = accumulation_steps_for(scenario, micro_batch);
    if (steps <= 0) continue;
    const DeviceFront front =
        device_front(scenario, calibration, space, TrainingStep{micro_batch, steps}, options);
    for (const ParetoPoint& p : front.points) {
      if (p.seconds > 0)
        points.push_back(
            {p.peak_bytes, micro_batch, steps, p.seconds, front.samples_per_iteration / p.seconds});
    }
  }
  // By memory, the faster first at equal memory, then only what beats everything lighter.
  std::sort(points.begin(), points.end(), [](const MemoryBreakpoint& a, const MemoryBreakpoint& b) {
    if (a.peak_bytes != b.peak_bytes) return a.peak_bytes < b.peak_bytes;
    if (a.samples_per_second != b.samples_per_second) return a.samples_per_second > b.samples_per_second;
    return a.micro_batch < b.micro_batch;
  });
  MemorySweep sweep;
  sweep.limit_bytes = static_cast<double>(scenario.training.memory_limit_bytes);
  sweep.device_bytes = static_cast<double>(scenario.cluster.gpu.memory_bytes);
  for (const MemoryBreakpoint& p : points) {
    if (sweep.breakpoints.empty() ||
        p.samples_per_second > sweep.breakpoints.back().samples_per_second * (1 + 1e-12))
      sweep.breakpoints.push_back(p);
  }
  for (std::size_t i = 0; i < sweep.breakpoints.size(); ++i) {
    if (sweep.breakpoints[i].peak_bytes <= sweep.limit_bytes) {
      sweep.at_limit = static_cast<int>(i);
    } else if (sweep.next < 0) {
      sweep.next = static_cast<int>(i);
    }
  }
  return sweep;
}

}  // namespace shardscope
