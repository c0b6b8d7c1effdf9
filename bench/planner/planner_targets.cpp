// Benchmark: the planner's speed targets (issue 10), each against the OSDP search recurrence measured in the
// same run on the same problem (osdp_recurrence.hpp), printing time, target and the ratio.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/planner/osdp_recurrence.hpp"
#include "planner/core/mesh.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/mesh_search.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// An N&D model (OSDP Table 1 family: hidden 1536, minGPT layout) of `layers` layers on `cluster`.
Scenario nd_scenario(int layers, const std::string& cluster, const std::string& limit, int hidden = 1536,
                     int sequence = 1024) {
  const std::string text = "model:\n  transformer: {layers: " + std::to_string(layers) +
                           ", hidden: " + std::to_string(hidden) +
                           ", heads: 16, vocab: 50257, sequence_length: " + std::to_string(sequence) +
                           ", mlp: gelu, norm: layernorm, positions: learned, tied_embeddings: false, "
                           "flash_attention: false, dropout: true}\ncluster: " +
                           cluster + "\ntraining: {memory_limit: " + limit +
                           ", runtime_reserve: 512MiB, precision: mixed-fp16, checkpointing: search, "
                           "slice_granularities: [1, 2, 4, 8], max_micro_batch: 64}\n";
  return parse_scenario_string(text, "nd-" + std::to_string(layers) + ".yaml");
}

Scenario shipped(const std::string& name) {
  return load_scenario_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
}

double seconds_of(const std::function<void()>& f, int repeats = 1) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
}

// OSDP's space: per operator DP (NNN) or ZDP (GGG), checkpointed or not: its 4 strategies.
SearchSpace osdp_four(const Scenario& s) {
  SearchSpace space = osdp_space(s.training, false);
  space.name = "osdp-4";
  space.checkpoint = {false, true};
  return space;
}

// The OSDP recurrence run once per batch size a plan scanned (as OSDP's scheduler runs it per batch size), on
// the 4-strategy instance of each: the reference of the whole-plan targets.
double osdp_scan_seconds(const Scenario& s, const PlanReport& report) {
  const SearchSpace space = osdp_four(s);
  double total = 0;
  for (const BatchRow& row : report.best.batches) {
    const PlanInstance inst = build_instance(ValidScenario(s), Calibration{}, space,
                                             TrainingStep{row.micro_batch, row.gradient_accumulation_steps});
    const bench::OsdpInput in = bench::osdp_input(inst.problem);
    total += seconds_of([&] {
      benchmark::DoNotOptimize(bench::osdp_recurrence(in.mem_mb, in.seconds, in.max_mem_mb, in.strategies));
    });
  }
  return total;
}

struct Line {
  std::string what;
  double seconds = 0;
  double target = 0;
  double reference = 0;  // OSDP recurrence on the same problem, this run
  std::string note;
};
std::vector<Line>& lines() {
  static std::vector<Line> l;
  return l;
}

// A whole `plan` (with or without baselines) against its target, with the OSDP scan as reference.
void plan_target(benchmark::State& state, const std::function<Scenario()>& make, bool baselines,
                 double target, const std::string& what) {
  const Scenario s = make();
  PlanReport report;
  for (auto _ : state) {
    report = plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = baselines});
    benchmark::DoNotOptimize(report.best.plan.predicted.iteration_seconds);
  }
  const double per = seconds_of([&] {
    report = plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = baselines});
  });
  const double reference = report.best.batches.empty() ? 0 : osdp_scan_seconds(s, report);
  state.counters["target_s"] = target;
  lines().push_back({what, per, target, reference,
                     std::to_string(s.model.operators.size()) + " operators, " +
                         std::to_string(report.best.batches.size()) + " batch sizes"});
}

// The OSDP-sized space at one batch size: the exact DP with its certificate vs the recurrence.
void osdp_space_target(benchmark::State& state, int layers, const std::string& limit) {
  const Scenario s = nd_scenario(layers, "{preset: titan-rtx-8-pcie3}", limit);
  const PlanInstance inst = build_instance(ValidScenario(s), Calibration{}, osdp_four(s), TrainingStep{1, 1});
  McSolution sol;
  for (auto _ : state) {
    sol = solve_dp(inst.problem);
    benchmark::DoNotOptimize(sol.seconds);
  }
  const double per = seconds_of([&] { sol = solve_dp(inst.problem); }, 5);
  const bench::OsdpInput in = bench::osdp_input(inst.problem);
  bench::OsdpRecurrenceResult ref;
  const double reference =
      seconds_of([&] { ref = bench::osdp_recurrence(in.mem_mb, in.seconds, in.max_mem_mb, in.strategies); });
  const double gap = (sol.seconds - sol.lower_bound_seconds) / sol.seconds;
  char note[200];
  std::snprintf(note, sizeof note,
                "gap %.3f %% (target <= 0.5 %%); objective %.6f s vs OSDP %.6f s; %lld MB x %zu", 100 * gap,
                sol.seconds, ref.feasible ? ref.seconds : NAN, static_cast<long long>(in.max_mem_mb),
                inst.problem.classes.size());
  state.counters["gap_pct"] = 100 * gap;
  lines().push_back(
      {"OSDP space, " + std::to_string(layers) + " layers, " + limit + " (>= 20x)", per, 0, reference, note});
}

// `operators` operators (a transformer of operators / 2 layers on 4 DGX-H100 nodes): time and peak memory per
// operator-choice.
// (Beyond a few thousand layers a hidden size of 1536 keeps more checkpointed activations than any GPU holds:
// the 100,000-operator model is narrower, hidden 256 and 128 tokens.)
void scale_target(benchmark::State& state, int layers, int nodes, double target) {
  const bool narrow = layers > 10000;
  const Scenario s = nd_scenario(layers, "{preset: dgx-h100, nodes: " + std::to_string(nodes) + "}", "64GB",
                                 narrow ? 256 : 1536, narrow ? 128 : 1024);
  PlanReport report;
  for (auto _ : state) {
    report = plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = false});
    benchmark::DoNotOptimize(report.best.plan.predicted.iteration_seconds);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double choices =
      static_cast<double>(s.model.operators.size()) *
      static_cast<double>(enumerate_choices(full_space(s.training), s.model.operators[1]).size());
  char note[200];
  std::snprintf(note, sizeof note,
                "%zu operators; peak RSS %.0f MiB = %.0f bytes per operator-choice (<= 1 KiB)",
                s.model.operators.size(), static_cast<double>(usage.ru_maxrss) / 1024,
                static_cast<double>(usage.ru_maxrss) * 1024 / choices);
  lines().push_back({"plan --no-baselines, " + std::to_string(layers) + " layers", 0.0, target, 0, note});
  lines().back().seconds = seconds_of(
      [&] { report = plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = false}); });
}

// `plan` over every tensor-parallel mesh (issue 33, <= 2 s for a 70B model on 64 GPUs), with one plan of the
// unsliced scenario (TP 1, the same request) as the reference measured in the same run.
void mesh_target(benchmark::State& state, const std::string& name, double target) {
  const Scenario s = shipped(name);
  const PlanRequest request{.with_baselines = true};
  MeshSearch search;
  for (auto _ : state) {
    search = search_meshes(s, Calibration{}, request);
    benchmark::DoNotOptimize(search.best);
  }
  const double per = seconds_of([&] { search = search_meshes(s, Calibration{}, request); });
  const double reference = seconds_of([&] { plan_scenario(ValidScenario(s), Calibration{}, request); });
  std::string meshes;
  for (const MeshOption& o : search.options) meshes += (meshes.empty() ? "" : ", ") + slice_text(o.slice);
  lines().push_back({"plan over every mesh, " + name + " (<= 2 s; reference: the unsliced mesh alone)", per,
                     target, reference, std::to_string(search.options.size()) + " meshes (" + meshes + ")"});
}

// `plan --pp` of Llama 3 70B on 64 A100s (issue 34): stages, their cut and plans; `pipeline` 0 searches every
// stage count with every TP degree. The reference, in the same run: the mesh search of the same scenario
// without baselines (what one stage of each mesh costs).
void pipeline_target(benchmark::State& state, int pipeline, int tensor, double target) {
  Scenario s = shipped("llama3-70b-64gpu-tp");
  s.parallelism.pipeline = pipeline;
  if (tensor > 0) s.parallelism.tensor = tensor;
  const PlanRequest request{.with_baselines = false};
  PipelineSearch search;
  for (auto _ : state) {
    search = search_pipelines(s, Calibration{}, request);
    benchmark::DoNotOptimize(search.best);
  }
  const double per = seconds_of([&] { search = search_pipelines(s, Calibration{}, request); });
  Scenario meshes = shipped("llama3-70b-64gpu-tp");
  const double reference = seconds_of([&] { search_meshes(meshes, Calibration{}, request); });
  int plans = 0;
  for (const PipelineOption& o : search.options) plans += o.stage_plans_made;
  const std::string what = pipeline == 0 ? "plan --pp search --tp search, llama3-70b 64 GPUs"
                                         : "plan --pp " + std::to_string(pipeline) + " --tp " +
                                               std::to_string(tensor) + ", llama3-70b 64 GPUs";
  lines().push_back(
      {what + " (ref: mesh search)", per, target, reference,
       std::to_string(search.options.size()) + " pipelines, " + std::to_string(plans) + " stage plans"});
}

void register_all() {
  using benchmark::RegisterBenchmark;
  const auto ms = benchmark::kMillisecond;
  RegisterBenchmark(
      "plan_no_baselines/default", plan_target, [] { return shipped("default"); }, false, 0.030,
      "plan --no-baselines, default (<= 30 ms)")
      ->Unit(ms);
  RegisterBenchmark(
      "plan_no_baselines/nd-192", plan_target,
      [] { return nd_scenario(192, "{preset: titan-rtx-8-pcie3}", "24GB"); }, false, 0.150,
      "plan --no-baselines, N&D 192 layers (<= 150 ms)")
      ->Unit(ms);
  for (const auto& [layers, limit] :
       std::vector<std::pair<int, std::string>>{{48, "8GB"}, {96, "16GB"}, {192, "24GB"}}) {
    RegisterBenchmark(("osdp_space/" + std::to_string(layers)).c_str(), osdp_space_target, layers, limit)
        ->Unit(ms);
  }
  // The GUI's re-plan after a memory-slider step (issue 12): the default scenario a quarter GiB lower,
  // planned as the GUI's worker plans it (PlanRequest with or without baselines).
  const auto slider = [] {
    Scenario s = shipped("default");
    s.training.memory_limit_bytes -= 256LL * 1024 * 1024;
    return s;
  };
  RegisterBenchmark("replan_gui_slider/no_baselines", plan_target, slider, false, 0.050,
                    "GUI re-plan after a slider step, no baselines (<= 50 ms)")
      ->Unit(ms);
  RegisterBenchmark("replan_gui_slider/baselines", plan_target, slider, true, 0.250,
                    "GUI re-plan after a slider step, with baselines (<= 250 ms)")
      ->Unit(ms);
  RegisterBenchmark(
      "plan/default", plan_target, [] { return shipped("default"); }, true, 0.100,
      "plan (all baselines), default (<= 100 ms)")
      ->Unit(ms);
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SHARDSCOPE_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml" || entry.path().stem() == "default") continue;
    const std::string name = entry.path().stem().string();
    RegisterBenchmark(("plan/" + name).c_str(), plan_target, [name] { return shipped(name); }, true, 1.0,
                      "plan (all baselines), " + name + " (<= 1 s)")
        ->Unit(ms)
        ->Iterations(1);
  }
  RegisterBenchmark("plan_meshes/llama3-70b-64gpu-tp", mesh_target, "llama3-70b-64gpu-tp", 2.0)
      ->Unit(ms)
      ->Iterations(1);
  RegisterBenchmark("plan_meshes/mixtral-8x7b-32gpu-ep", mesh_target, "mixtral-8x7b-32gpu-ep", 2.0)
      ->Unit(ms)
      ->Iterations(1);
  RegisterBenchmark("plan_pipeline/llama3-70b-pp4-tp4", pipeline_target, 4, 4, 2.0)->Unit(ms)->Iterations(1);
  RegisterBenchmark("plan_pipeline/llama3-70b-search", pipeline_target, 0, 0, 0.0)->Unit(ms)->Iterations(1);
  RegisterBenchmark("plan_no_baselines/nd-2000", scale_target, 2000, 4, 5.0)->Unit(ms)->Iterations(1);
  RegisterBenchmark("plan_no_baselines/nd-50000", scale_target, 50000, 16, 60.0)->Unit(ms)->Iterations(1);
}

}  // namespace
}  // namespace shardscope

int main(int argc, char** argv) {
  shardscope::register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  std::printf("\n%-58s %10s %10s %12s %8s  %s\n", "target", "ours", "target", "OSDP ref", "ratio", "notes");
  std::vector<shardscope::Line> last;  // the final run of each benchmark (it is called more than once)
  for (const auto& l : shardscope::lines()) {
    auto same = std::find_if(last.begin(), last.end(), [&](const auto& o) { return o.what == l.what; });
    if (same != last.end()) {
      *same = l;
    } else {
      last.push_back(l);
    }
  }
  for (const auto& l : last) {
    const std::string target = l.target > 0 ? std::to_string(l.target * 1e3).substr(0, 7) + "ms" : "-";
    const std::string ref = l.reference > 0 ? std::to_string(l.reference * 1e3).substr(0, 8) + "ms" : "-";
    const std::string ratio =
        l.reference > 0 ? std::to_string(l.reference / l.seconds).substr(0, 6) + "x" : "-";
    std::printf("%-58s %8.2fms %10s %12s %8s  %s%s\n", l.what.c_str(), l.seconds * 1e3, target.c_str(),
                ref.c_str(), ratio.c_str(), l.note.c_str(),
                l.target > 0 ? (l.seconds <= l.target ? "  MET" : "  MISSED") : "");
  }
  benchmark::Shutdown();
  return 0;
}
