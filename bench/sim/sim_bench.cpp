// Benchmark: one simulated FSDP iteration of N&D 96 layers (194 operators) on 8, 64, 512 and 1024 GPUs of
// DGX-A100 nodes; each size runs in its own `shardscope simulate` process (ChildProcessRunner). Prints wall
// time, peak RSS, SimGrid activities per wall second and the scaling exponent of wall time in the number of
// GPUs.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "sim/runner.hpp"

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
  const std::string yaml =
      "model: {preset: nd-96x1536}\ncluster: {preset: dgx-a100, nodes: " + std::to_string(gpus / 8) +
      "}\ntraining: {memory_limit: 16GB, runtime_reserve: 1GiB, micro_batch: 2}\n";
  sim::SimulationJob job;
  job.scenario_file =
      (std::filesystem::temp_directory_path() /
       ("shardscope_bench_" + std::to_string(::getpid()) + "_" + std::to_string(gpus) + ".yaml"))
          .string();
  std::ofstream(job.scenario_file) << yaml;
  const Scenario s = parse_scenario_string(yaml, job.scenario_file);
  job.plan = plan_strategy(s, Calibration{}, space_by_name("fsdp", s.training)).plan;
  sim::ChildProcessRunner runner(SHARDSCOPE_BINARY);
  for (auto _ : state) {
    // Wall time of the whole child: start-up, scenario and plan parsing and result JSON included.
    const auto start = std::chrono::steady_clock::now();
    const sim::IterationResult r = runner.run(job);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);  // the largest child so far: sizes run in increasing order
    const Measured m{wall, static_cast<double>(usage.ru_maxrss) * 1024.0, static_cast<double>(r.activities),
                     r.iteration_seconds};
    state.SetIterationTime(m.wall_seconds);
    measured()[gpus] = m;
    state.counters["rss_MiB"] = m.rss_bytes / 1048576.0;
    state.counters["activities"] = m.activities;
    state.counters["activities_per_s"] = m.activities / m.wall_seconds;
    state.counters["simulated_s"] = m.simulated_seconds;
  }
  std::filesystem::remove(job.scenario_file);
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
