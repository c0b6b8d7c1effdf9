// Benchmark: one simulated FSDP iteration of LLaMA-7B on 64, 256, 1,024 and 4,096 GPUs of DGX-A100 nodes with
// the default collectives (`auto`: NCCL's flows) and with ring collectives, and a 1,024-step gradient
// accumulation on 32 GPUs; each runs in its own `shardscope simulate` process (ChildProcessRunner). Prints
// wall and CPU seconds, peak RSS, activities, the ratio of each size to the 64-GPU run measured in the same
// session, the scaling exponents (least-squares fit of log time on log GPUs) and the targets.
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
    "model: {preset: llama-7b}\n"
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

// The default collectives: NCCL's flows, its channels between the same two GPUs as one weighted flow (about
// two flows per GPU and collective on DGX-A100 nodes), each a detached SimGrid comm.
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
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
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

// One series: each size's wall and CPU time with its ratio to the 64-GPU run, activities and RSS, the scaling
// exponent, and the targets (`limits`: GPUs -> wall seconds; memory <= 2 GiB; the exponent <= `max_exponent`
// when given).
void print_series(const char* title, std::map<int, Measured> m, const std::map<int, double>& limits,
                  double max_exponent) {
  if (m.empty() || (m.size() == 1 && m.count(0))) return;
  std::printf("\n%s (ratios: to the 64-GPU run of this session)\n", title);
  std::printf("%6s %10s %10s %10s %10s %12s %10s\n", "GPUs", "wall (s)", "x 64", "CPU (s)", "x 64",
              "activities", "RSS (MiB)");
  const bool reference = m.count(64) > 0;
  for (const auto& [gpus, x] : m) {
    if (gpus == 0) continue;
    std::printf("%6d %10.2f %10.1f %10.2f %10.1f %12.0f %10.1f\n", gpus, x.wall_seconds,
                reference ? x.wall_seconds / m[64].wall_seconds : 0.0, x.cpu_seconds,
                reference ? x.cpu_seconds / m[64].cpu_seconds : 0.0, x.activities, x.rss_bytes / 1048576.0);
  }
  const double wall_exponent = scaling_exponent(m, &Measured::wall_seconds);
  std::printf("scaling exponent (fit of log time on log GPUs): wall %.2f, CPU %.2f", wall_exponent,
              scaling_exponent(m, &Measured::cpu_seconds));
  if (max_exponent > 0) {
    std::printf(" (target <= %.1f: %s)", max_exponent, wall_exponent <= max_exponent ? "met" : "NOT met");
  }
  std::printf("\n");
  for (const auto& [gpus, limit] : limits) {
    if (m.count(gpus) == 0) continue;
    std::printf("%d GPUs: %.1f s wall (target <= %.0f s), %.0f MiB (target <= 2048): %s\n", gpus,
                m[gpus].wall_seconds, limit, m[gpus].rss_bytes / 1048576.0,
                m[gpus].wall_seconds <= limit && m[gpus].rss_bytes <= 2.0 * (1 << 30) ? "met" : "NOT met");
  }
}

}  // namespace
}  // namespace shardscope

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  shardscope::print_series("FSDP iteration of LLaMA-7B, DGX-A100 nodes, default collectives (NCCL's flows)",
                           shardscope::nccl_measured(), {{1024, 15}, {4096, 60}}, 1.2);
  shardscope::print_series("The same iteration with ring collectives (execution.collectives: ring)",
                           shardscope::measured(), {{1024, 20}, {4096, 60}}, 0);
  auto& m = shardscope::measured();
  if (m.count(0)) {
    std::printf("1,024-step accumulation on 32 GPUs: %.2f s wall, %.2f s CPU, %.0f MiB\n", m[0].wall_seconds,
                m[0].cpu_seconds, m[0].rss_bytes / 1048576.0);
  }
  benchmark::Shutdown();
  return 0;
}
