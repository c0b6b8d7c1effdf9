// Benchmark: points per second of `shardscope sweep` at --jobs 1 and --jobs 2, plan only on the 1,100-point
// grid scenarios/sweeps/bench-1100.yaml and plan + simulate on scenarios/sweeps/example.yaml; prints the
// 1 -> 2 jobs scaling (measured in the same session) against the targets (1,000 plan-only points in
// under 5 minutes, >= 1.8x from 1 to 2 jobs).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

namespace {

struct Sweep {
  std::size_t points = 0;
  double seconds = 0;
};
// By (grid label, jobs).
std::map<std::pair<std::string, int>, Sweep>& measured() {
  static std::map<std::pair<std::string, int>, Sweep> m;
  return m;
}

std::size_t lines_in(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.empty() ? 0 : 1;
  return n;
}

// One whole sweep in a fresh results file; returns its points and wall seconds (start-up included).
Sweep run_sweep(const std::string& grid, int jobs, bool simulate) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("shardscope_sweep_bench_" + std::to_string(::getpid()) + ".jsonl"))
                              .string();
  std::filesystem::remove(out);
  const std::string command = std::string(SHARDSCOPE_BINARY) + " sweep " + SHARDSCOPE_SOURCE_DIR +
                              "/scenarios/sweeps/" + grid + " --out " + out + " --jobs " +
                              std::to_string(jobs) + (simulate ? " --simulate" : "") + " --quiet";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Sweep s{lines_in(out), seconds};
  std::filesystem::remove(out);
  if (status != 0) std::fprintf(stderr, "sweep exited with status %d: %s\n", status, command.c_str());
  return s;
}

void BM_Sweep(benchmark::State& state, const std::string& grid, bool simulate) {
  const int jobs = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const Sweep s = run_sweep(grid, jobs, simulate);
    measured()[{grid + (simulate ? " --simulate" : ""), jobs}] = s;
    state.SetIterationTime(s.seconds);
    state.counters["points"] = static_cast<double>(s.points);
    state.counters["points_per_s"] = static_cast<double>(s.points) / s.seconds;
  }
}
BENCHMARK_CAPTURE(BM_Sweep, plan_only_1100, std::string("bench-1100.yaml"), false)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sweep, plan_and_simulate_example, std::string("example.yaml"), true)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  std::printf("\n%-32s %5s %8s %10s %10s %12s\n", "grid", "jobs", "points", "wall (s)", "points/s",
              "x (jobs 1)");
  for (const auto& [key, s] : measured()) {
    const auto one = measured().find({key.first, 1});
    const double ratio = one != measured().end() && s.seconds > 0 ? one->second.seconds / s.seconds : 0.0;
    std::printf("%-32s %5d %8zu %10.2f %10.2f %12.2f\n", key.first.c_str(), key.second, s.points, s.seconds,
                s.seconds > 0 ? static_cast<double>(s.points) / s.seconds : 0.0, ratio);
  }
  const auto plan_two = measured().find({"bench-1100.yaml", 2});
  const auto plan_one = measured().find({"bench-1100.yaml", 1});
  if (plan_two != measured().end() && plan_one != measured().end()) {
    const double per_1000 = plan_two->second.seconds * 1000.0 / static_cast<double>(plan_two->second.points);
    const double scaling = plan_one->second.seconds / plan_two->second.seconds;
    std::printf("1,000 plan-only points at --jobs 2: %.1f s (target < 300 s): %s\n", per_1000,
                per_1000 < 300 ? "met" : "NOT met");
    std::printf("1 -> 2 jobs: %.2fx (target >= 1.8x): %s\n", scaling, scaling >= 1.8 ? "met" : "NOT met");
  }
  benchmark::Shutdown();
  return 0;
}
