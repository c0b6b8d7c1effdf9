// Memory sweep: each micro-batch's Pareto front, turned into throughput and merged by memory.
#include "planner/search/memory_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/search/batch_scan.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"
#include "planner/search/solvers/mckp.hpp"

namespace shardscope {
namespace {

// Every point of one micro-batch's front, as a candidate breakpoint.
void add_front(const ValidScenario& scenario, const Calibration& calibration, const SearchSpace& space,
               TrainingStep step, int threads, std::vector<MemoryBreakpoint>& out) {
  PlanInstance inst = build_instance(scenario, calibration, space, step);
  const double device = static_cast<double>(scenario.cluster.gpu.memory_bytes);
  inst.problem.capacity_bytes = device - inst.fixed_bytes;
  if (inst.problem.capacity_bytes <= 0) return;
  DpOptions options;
  options.threads = threads;
  // The search's own quantum at the memory limit (capacity / bins there), so that a breakpoint near the
  // limit is rounded as the search rounds; at most 16 times the bins the search uses.
  const double limit_capacity = static_cast<double>(scenario.training.memory_limit_bytes) - inst.fixed_bytes;
  if (limit_capacity > 0) {
    const double scale = std::min(16.0, std::max(1.0, inst.problem.capacity_bytes / limit_capacity));
    options.bins = static_cast<int>(std::ceil(options.bins * scale));
  }
  for (const ParetoPoint& p : pareto_front(inst.problem, options, std::numeric_limits<int>::max())) {
    if (!(p.seconds > 0) || p.peak_bytes + inst.fixed_bytes > device) continue;
    out.push_back({p.peak_bytes + inst.fixed_bytes, step.micro_batch, step.accumulation_steps, p.seconds,
                   inst.samples_per_iteration / p.seconds});
  }
}

}  // namespace

MemorySweep memory_sweep(const ValidScenario& scenario, const Calibration& calibration, int threads) {
  const SearchSpace space = scenario.planner.cost_model == CostModelKind::paper
                                ? osdp_space(scenario.training, true)
                                : full_space(scenario.training);
  std::vector<MemoryBreakpoint> points;
  for (const std::int64_t micro_batch : batch_candidates(scenario)) {
    const int steps = accumulation_steps_for(scenario, micro_batch);
    if (steps <= 0) continue;
    add_front(scenario, calibration, space, TrainingStep{micro_batch, steps}, threads, points);
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
