// The price of memory: the memory limits at which the search's best plan changes, over every micro-batch,
// from the smallest plan's peak up to the device's memory (exact on the search's own objective).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/search/plan_observer.hpp"

namespace shardscope {

// From `peak_bytes` per GPU (runtime reserve included) up to the next breakpoint, the fastest plan the search
// knows runs this micro-batch and accumulation at this objective (operators priced as if their neighbours
// chose alike: the certificate's objective, not the scheduled prediction).
struct MemoryBreakpoint {
  double peak_bytes = 0;
  std::int64_t micro_batch = 0;
  int accumulation_steps = 0;
  double seconds = 0;
  double samples_per_second = 0;
};

struct MemorySweep {
  std::vector<MemoryBreakpoint> breakpoints;  // by memory, each faster than the one before
  double limit_bytes = 0;                     // the scenario's memory limit
  double device_bytes = 0;                    // the GPU's memory, where the sweep stops
  // The breakpoint in force at the limit (-1: none fits there) and the first above it (-1: none).
  int at_limit = -1;
  int next = -1;
};

// Every micro-batch the scan would try, each its Pareto front of the product's space up to the device's
// memory (the rounded-up DP's value function: peaks are the DP's rounded bytes, each operator's rounded up to
// the quantum the search uses at the memory limit); merged into the one curve of best throughput by memory.
// `threads` as elsewhere. `observer` (optional) is asked before each micro-batch whether to stop: then the
// sweep throws PlanCancelled (plan_observer.hpp), as planning does.
MemorySweep memory_sweep(const ValidScenario& scenario, const Calibration& calibration, int threads = 0,
                         const PlanObserver* observer = nullptr);

}  // namespace shardscope
