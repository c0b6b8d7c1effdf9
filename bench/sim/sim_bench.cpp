// Benchmark: one simulated FSDP iteration of LLaMA-7B on 64, 256, 1,024 and 4,096 GPUs of DGX-A100 nodes with
// ring collectives, the same iteration with NCCL's flows (the `auto` default for FSDP) on 64, 128 and 256
// GPUs, and a 1,024-step gradient accumulation on 32 GPUs; each runs in its own `shardscope simulate` process
// (ChildProcessRunner). Prints wall and CPU seconds, peak RSS, activities, the ratio of each size to the
// 64-GPU run measured in the same session, the scaling exponent (least-squares fit of log time on log GPUs)
// and the targets.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "sim/runner.hpp"

namespace shardscope {
namespace {

struct Measured {
  double wall_seconds = 0, cpu_seconds = 0, rss_bytes = 0, activities = 0, simulated_seconds = 0;
};
std::map<int, Measured>& measured() {  // rings, by GPUs; key 0: the 1,024-step accumulation
  static std::map<int, Measured> m;
  return m;
}
std::map<int, Measured>& nccl_measured() {  // NCCL flows, by GPUs
  static std::map<int, Measured> m;
  return m;
}

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

Measured run_child(const std::string& yaml, const std::string& tag) {
  sim::SimulationJob job;
  job.scenario_file = (std::filesystem::temp_directory_path() /
                       ("shardscope_bench_" + std::to_string(::getpid()) + "_" + tag + ".yaml"))
                          .string();
  std::ofstream(job.scenario_file) << yaml;
  const Scenario s = parse_scenario_string(yaml, job.scenario_file);
  job.plan = plan_strategy(ValidScenario(s), Calibration{}, space_by_name("fsdp", s.training)).plan;
  job.timeout_seconds = 900;
  sim::ChildProcessRunner runner(SHARDSCOPE_BINARY);
  // Wall time of the whole child: start-up, scenario and plan parsing and result JSON included.
  const double cpu_before = children_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  const sim::IterationResult r = runner.run(job);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);  // the largest child so far: the runs go from small to large
  std::filesystem::remove(job.scenario_file);
  return {wall, children_cpu_seconds() - cpu_before, static_cast<double>(usage.ru_maxrss) * 1024.0,
          static_cast<double>(r.activities), r.iteration_seconds};
}

void report(benchmark::State& state, const Measured& m) {
  state.SetIterationTime(m.wall_seconds);
  state.counters["cpu_s"] = m.cpu_seconds;
  state.counters["rss_MiB"] = m.rss_bytes / 1048576.0;
  state.counters["activities"] = m.activities;
  state.counters["simulated_s"] = m.simulated_seconds;
}

const char* kModel =
    "model: {preset: llama-7b}\nexecution: {collectives: ring}\n"
    "training: {runtime_reserve: 2GiB, precision: mixed-bf16, group_size: 8, max_micro_batch: 64";
const char* kNcclModel =
    "model: {preset: llama-7b}\nexecution: {collectives: nccl}\n"
    "training: {runtime_reserve: 2GiB, precision: mixed-bf16, group_size: 8, max_micro_batch: 64";

void BM_Simulate1024StepAccumulation(benchmark::State& state) {
  const std::string yaml =
      std::string(kModel) + ", gradient_accumulation_steps: 1024}\ncluster: {preset: dgx-a100, nodes: 4}\n";
  for (auto _ : state) {
    const Measured m = run_child(yaml, "accumulation");
    measured()[0] = m;
    report(state, m);
  }
}
BENCHMARK(BM_Simulate1024StepAccumulation)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_SimulateLlama7bFsdp(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  const std::string yaml =
      std::string(kModel) + "}\ncluster: {preset: dgx-a100, nodes: " + std::to_string(gpus / 8) + "}\n";
  for (auto _ : state) {
    const Measured m = run_child(yaml, std::to_string(gpus));
    measured()[gpus] = m;
    report(state, m);
  }
}
BENCHMARK(BM_SimulateLlama7bFsdp)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// NCCL's flows: `channels` flows per ring edge, each a detached SimGrid comm that maestro's list drops by a
// linear scan when it ends, so the cost grows about 4x per doubling; stops at 256 GPUs.
void BM_SimulateLlama7bFsdpNccl(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  const std::string yaml =
      std::string(kNcclModel) + "}\ncluster: {preset: dgx-a100, nodes: " + std::to_string(gpus / 8) + "}\n";
  for (auto _ : state) {
    const Measured m = run_child(yaml, "nccl-" + std::to_string(gpus));
    nccl_measured()[gpus] = m;
    report(state, m);
  }
}
BENCHMARK(BM_SimulateLlama7bFsdpNccl)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Least-squares slope of log(seconds) on log(GPUs).
double scaling_exponent(const std::map<int, Measured>& m, double Measured::*field) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [gpus, x] : m) {
    if (gpus == 0) continue;
    const double lx = std::log(gpus), ly = std::log(x.*field);
    n += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  return n < 2 ? 0 : (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace
}  // namespace shardscope

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  auto& m = shardscope::measured();
  std::printf("\nFSDP iteration of LLaMA-7B, DGX-A100 nodes (ratios: to the 64-GPU run of this session)\n");
  std::printf("%6s %10s %10s %10s %10s %12s %10s\n", "GPUs", "wall (s)", "x 64", "CPU (s)", "x 64",
              "activities", "RSS (MiB)");
  const bool reference = m.count(64) > 0;
  for (const auto& [gpus, x] : m) {
    if (gpus == 0) continue;
    std::printf("%6d %10.2f %10.1f %10.2f %10.1f %12.0f %10.1f\n", gpus, x.wall_seconds,
                reference ? x.wall_seconds / m[64].wall_seconds : 0.0, x.cpu_seconds,
                reference ? x.cpu_seconds / m[64].cpu_seconds : 0.0, x.activities, x.rss_bytes / 1048576.0);
  }
  std::printf("scaling exponent (fit of log time on log GPUs): wall %.2f, CPU %.2f\n",
              shardscope::scaling_exponent(m, &shardscope::Measured::wall_seconds),
              shardscope::scaling_exponent(m, &shardscope::Measured::cpu_seconds));
  const auto target = [&](int gpus, double limit) {
    if (m.count(gpus) == 0) return;
    std::printf("%d GPUs: %.1f s wall (target <= %.0f s), %.0f MiB (target <= 2048): %s\n", gpus,
                m[gpus].wall_seconds, limit, m[gpus].rss_bytes / 1048576.0,
                m[gpus].wall_seconds <= limit && m[gpus].rss_bytes <= 2.0 * (1 << 30) ? "met" : "NOT met");
  };
  target(1024, 20);
  target(4096, 60);
  const auto& nccl = shardscope::nccl_measured();
  if (!nccl.empty()) {
    std::printf(
        "\nThe same iteration with NCCL's flows (execution.collectives: nccl, every plan's under the default "
        "auto)\n");
    std::printf("%6s %10s %10s %12s %10s\n", "GPUs", "wall (s)", "CPU (s)", "activities", "RSS (MiB)");
    for (const auto& [gpus, x] : nccl) {
      std::printf("%6d %10.2f %10.2f %12.0f %10.1f\n", gpus, x.wall_seconds, x.cpu_seconds, x.activities,
                  x.rss_bytes / 1048576.0);
    }
    std::printf("scaling exponent: wall %.2f, CPU %.2f\n",
                shardscope::scaling_exponent(nccl, &shardscope::Measured::wall_seconds),
                shardscope::scaling_exponent(nccl, &shardscope::Measured::cpu_seconds));
  }
  if (m.count(0)) {
    std::printf("1,024-step accumulation on 32 GPUs: %.2f s wall, %.2f s CPU, %.0f MiB\n", m[0].wall_seconds,
                m[0].cpu_seconds, m[0].rss_bytes / 1048576.0);
  }
  benchmark::Shutdown();
  return 0;
}
