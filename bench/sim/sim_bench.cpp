// Benchmark: one simulated FSDP iteration of N&D 96 layers (194 operators) on 8, 64, 512 and 1024 GPUs of
// DGX-A100 nodes; each size runs in its own process. Prints wall time, peak RSS, SimGrid activities per
// wall second and the scaling exponent of wall time in the number of GPUs.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "sim/isolated.hpp"
#include "sim/iteration_sim.hpp"

namespace shardscope {
namespace {

struct Measured {
  double wall_seconds = 0, rss_bytes = 0, activities = 0, simulated_seconds = 0;
};
std::map<int, Measured>& measured() {
  static std::map<int, Measured> m;
  return m;
}

void BM_SimulateIteration(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const std::vector<double> v = sim::run_isolated([gpus] {
      const Scenario s = parse_scenario_string(
          "model: {preset: nd-96x1536}\ncluster: {preset: dgx-a100, nodes: " + std::to_string(gpus / 8) +
          "}\ntraining: {memory_limit: 16GB, runtime_reserve: 1GiB, micro_batch: 2}\n");
      const StrategyResult planned = plan_strategy(s, Calibration{}, space_by_name("fsdp", s.training));
      const auto start = std::chrono::steady_clock::now();
      const sim::IterationResult r =
          sim::simulate_iteration(s, Calibration{}, planned.plan, sim::IterationOptions{});
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      return std::vector<double>{wall, static_cast<double>(usage.ru_maxrss) * 1024.0,
                                 static_cast<double>(r.activities), r.iteration_seconds};
    });
    state.SetIterationTime(v[0]);
    measured()[gpus] = {v[0], v[1], v[2], v[3]};
    state.counters["rss_MiB"] = v[1] / 1048576.0;
    state.counters["activities"] = v[2];
    state.counters["activities_per_s"] = v[2] / v[0];
    state.counters["simulated_s"] = v[3];
  }
}
BENCHMARK(BM_SimulateIteration)
    ->Arg(8)
    ->Arg(64)
    ->Arg(512)
    ->Arg(1024)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace shardscope

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  auto& m = shardscope::measured();
  std::printf("\nFSDP iteration of N&D 96 layers, micro-batch 2, DGX-A100 nodes\n");
  std::printf("%6s %12s %10s %14s %16s\n", "GPUs", "wall (s)", "RSS (MiB)", "activities", "activities/s");
  for (const auto& [gpus, x] : m) {
    std::printf("%6d %12.3f %10.1f %14.0f %16.0f\n", gpus, x.wall_seconds, x.rss_bytes / 1048576.0,
                x.activities, x.activities / x.wall_seconds);
  }
  if (m.count(64) && m.count(1024)) {
    const double exponent = std::log(m[1024].wall_seconds / m[64].wall_seconds) / std::log(1024.0 / 64.0);
    std::printf("scaling exponent of wall time in GPUs (64 -> 1024): %.2f\n", exponent);
    std::printf("1024-GPU iteration: %.1f s wall (target <= 60 s): %s\n", m[1024].wall_seconds,
                m[1024].wall_seconds <= 60 ? "met" : "NOT met");
  }
  benchmark::Shutdown();
  return 0;
}
