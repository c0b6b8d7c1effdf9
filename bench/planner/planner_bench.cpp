// Benchmark: exact DP vs the OSDP DFS on N&D 96 layers (194 operators), g in {1,2,4,8}, 8 GPUs, 16 GB.
// Prints the speed-up of the exact solver over the DFS measured in the same run, and both objectives.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

const Scenario& scenario() {
  static const Scenario s = parse_scenario_string(
      "model: {preset: nd-96x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 16GB, runtime_reserve: 512MiB, precision: mixed-fp16, slice_granularities: "
      "[1, 2, 4, 8]}\n",
      "bench.yaml");
  return s;
}

constexpr std::int64_t kMicroBatch = 2;

struct Record {
  double seconds_per_solve = 0;
  double objective = 0;
  double gap = 0;
  std::int64_t explored = 0;
  bool complete = true;
  std::size_t items = 0;
};
std::map<std::string, Record>& records() {
  static std::map<std::string, Record> r;
  return r;
}

PlanInstance instance(bool full) {
  const Scenario& s = scenario();
  const SearchSpace space = full ? full_space(s.training) : osdp_space(s.training, true);
  return build_instance(ValidScenario(s), Calibration{}, space, kMicroBatch);
}

void BM_ExactDp(benchmark::State& state, bool full) {
  const PlanInstance inst = instance(full);
  McSolution sol;
  for (auto _ : state) {
    sol = solve_dp(inst.problem);
    benchmark::DoNotOptimize(sol.seconds);
  }
  std::size_t items = 0;
  for (const auto& c : inst.problem.classes) items += c.size();
  Record& r = records()[full ? "exact-full" : "exact-osdp"];
  r.objective = sol.seconds;
  r.gap = (sol.seconds - sol.lower_bound_seconds) / sol.seconds;
  r.explored = sol.explored;
  r.items = items;
  state.counters["objective_s"] = sol.seconds;
  state.counters["gap_pct"] = 100 * r.gap;
  state.counters["items"] = static_cast<double>(items);
}

void BM_OsdpDfs(benchmark::State& state) {
  const PlanInstance inst = instance(false);
  McSolution sol;
  for (auto _ : state) {
    sol = solve_dfs(inst.problem, INT64_MAX, 60.0);
    benchmark::DoNotOptimize(sol.seconds);
  }
  Record& r = records()["dfs-osdp"];
  r.objective = sol.feasible ? sol.seconds : NAN;
  r.explored = sol.explored;
  r.complete = sol.complete;
  state.counters["objective_s"] = r.objective;
  state.counters["nodes"] = static_cast<double>(sol.explored);
  state.counters["complete"] = sol.complete ? 1 : 0;
}

void BM_PlanWholeScan(benchmark::State& state) {
  for (auto _ : state) {
    const PlanReport report =
        plan_scenario(ValidScenario(scenario()), Calibration{}, PlanRequest{.with_baselines = false});
    benchmark::DoNotOptimize(report.best.plan.predicted.iteration_seconds);
  }
}

BENCHMARK_CAPTURE(BM_ExactDp, osdp_space, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExactDp, full_space, true)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OsdpDfs)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_PlanWholeScan)->Unit(benchmark::kMillisecond);

class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string name = run.benchmark_name();
      const double per = run.GetAdjustedRealTime() * (run.time_unit == benchmark::kMillisecond ? 1e-3 : 1e-9);
      if (name.find("osdp_space") != std::string::npos) records()["exact-osdp"].seconds_per_solve = per;
      if (name.find("full_space") != std::string::npos) records()["exact-full"].seconds_per_solve = per;
      if (name.find("BM_OsdpDfs") != std::string::npos) records()["dfs-osdp"].seconds_per_solve = per;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace
}  // namespace shardscope

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  shardscope::RecordingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  auto& r = shardscope::records();
  const auto& exact = r["exact-osdp"];
  const auto& full = r["exact-full"];
  const auto& dfs = r["dfs-osdp"];
  std::printf("\nN&D 96 layers, 194 operators, 8 GPUs, 16 GB, micro-batch %lld\n",
              static_cast<long long>(shardscope::kMicroBatch));
  std::printf(
      "exact DP, OSDP space (DP/ZDP x splitting): %.3f ms per solve, %zu items, objective %.9f s, gap %.4f "
      "%%\n",
      exact.seconds_per_solve * 1e3, exact.items, exact.objective, 100 * exact.gap);
  std::printf(
      "exact DP, full space (PaRO x splitting x ckpt): %.3f ms per solve, %zu items, objective %.9f s, gap "
      "%.4f %%\n",
      full.seconds_per_solve * 1e3, full.items, full.objective, 100 * full.gap);
  std::printf("OSDP DFS (reference): %.3f s, %lld nodes, %s, best objective %.9f s\n", dfs.seconds_per_solve,
              static_cast<long long>(dfs.explored), dfs.complete ? "finished" : "stopped at the 60 s limit",
              dfs.objective);
  if (exact.seconds_per_solve > 0 && dfs.seconds_per_solve > 0) {
    std::printf("speed-up of the exact DP over the DFS: %.0fx%s\n",
                dfs.seconds_per_solve / exact.seconds_per_solve,
                dfs.complete ? "" : " (at least: the DFS did not finish)");
  }
  if (dfs.complete) {
    std::printf("objectives %s (DFS %.9f s vs DP %.9f s, DP gap bound %.4f %%)\n",
                std::fabs(dfs.objective - exact.objective) <= exact.gap * exact.objective + 1e-12
                    ? "agree"
                    : "DISAGREE",
                dfs.objective, exact.objective, 100 * exact.gap);
  }
  benchmark::Shutdown();
  return 0;
}
