// Synthetic machine: the planner's collective, compute and iteration formulas under a ground-truth
// calibration, plus noise, written as measurements JSON (a test fixture for the fitter, labelled as such).
#include "tests/fit/synthetic_machine.hpp"

#include <algorithm>
#include <cstdint>

#include "planner/core/digest.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/program/iteration_program.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope::testing {

SyntheticMachine titan_truth() {
  SyntheticMachine m;
  m.cluster = cluster_preset("titan-rtx-8-pcie3");
  Calibration& t = m.truth;
  const auto set = [&](LinkClass lc, double alpha, double bandwidth,
                       std::vector<std::pair<double, double>> table) {
    t.links[static_cast<std::size_t>(lc)] = LinkCalibration{alpha, bandwidth};
    t.link_message_efficiency[static_cast<std::size_t>(lc)] = std::move(table);
  };
  set(LinkClass::same_switch, 6e-6, 11e9, {{4096, 0.45}, {262144, 0.8}, {4194304, 1.0}});
  set(LinkClass::cross_switch, 9e-6, 9.5e9, {{4096, 0.4}, {1048576, 0.85}, {8388608, 1.0}});
  set(LinkClass::cross_socket, 12e-6, 8e9, {{8192, 0.3}, {1048576, 0.7}, {16777216, 1.0}});
  t.achievable_fraction[static_cast<std::size_t>(OperatorKind::attention)] = 0.55;
  t.achievable_fraction[static_cast<std::size_t>(OperatorKind::mlp)] = 0.62;
  t.achievable_fraction[static_cast<std::size_t>(OperatorKind::head)] = 0.7;
  t.overlap_slowdown = 0.12;
  t.runtime_reserve_bytes = 512.0 * 1024 * 1024;  // as scenarios/default.yaml's training.runtime_reserve
  return m;
}

namespace {

nlohmann::ordered_json machine_json(const SyntheticMachine& m) {
  return {{"backend", "synthetic"},
          {"hostnames", {"synthetic"}},
          {"ranks", m.cluster.gpus()},
          {"ranks_per_node", m.cluster.gpus_per_node},
          {"device_name", m.cluster.gpu.name + " (synthetic)"},
          {"versions", nlohmann::ordered_json::object()},
          {"compute_scale", 1.0}};
}

const char* op_name(CollectiveKind k) {
  return k == CollectiveKind::all_gather
             ? "all_gather"
             : (k == CollectiveKind::reduce_scatter ? "reduce_scatter" : "all_reduce");
}

}  // namespace

nlohmann::ordered_json micro_benchmarks(const SyntheticMachine& m) {
  Noise noise(m.seed, m.noise);
  nlohmann::ordered_json j;
  j["format"] = "shardscope-measurements";
  j["version"] = 1;
  j["machine"] = machine_json(m);
  j["collectives"] = nlohmann::ordered_json::array();
  const int n = m.cluster.gpus();
  struct Group {
    const char* name;
    GroupKind kind;
    int size, group_size_argument;
  };
  const Group groups[] = {{"intra", GroupKind::intra, 2, 2},
                          {"intra", GroupKind::intra, 4, 4},
                          {"inter", GroupKind::inter, 2, n / 2},
                          {"all", GroupKind::global, n, n}};
  for (const Group& g : groups) {
    const CollectiveCost cost(m.cluster, g.group_size_argument, m.truth);
    for (CollectiveKind op :
         {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter}) {
      for (double bytes = 8; bytes <= 1073741824.0; bytes *= 2) {
        const double t = cost.seconds(op, g.kind, bytes) * noise.factor();
        const double bus =
            op == CollectiveKind::all_reduce ? 2.0 * (g.size - 1) / g.size : (g.size - 1.0) / g.size;
        j["collectives"].push_back({{"op", op_name(op)},
                                    {"group", g.name},
                                    {"group_size", g.size},
                                    {"nodes", 1},
                                    {"bytes", bytes},
                                    {"count", static_cast<std::int64_t>(bytes / 4)},
                                    {"type", "float32"},
                                    {"time_seconds", t},
                                    {"algbw_GBps", bytes / t / 1e9},
                                    {"busbw_GBps", bytes / t / 1e9 * bus},
                                    {"iterations", 20}});
      }
    }
  }
  j["gemms"] = nlohmann::ordered_json::array();
  const double peak = m.cluster.gpu.peak_flops_per_second_fp16;
  for (OperatorKind kind : {OperatorKind::attention, OperatorKind::mlp, OperatorKind::head}) {
    const double fraction = *m.truth.achievable_fraction[static_cast<std::size_t>(kind)];
    for (const auto& [mm, nn, kk] :
         {std::tuple{6144, 1536, 1536}, std::tuple{6144, 6144, 1536}, std::tuple{6144, 1536, 6144},
          std::tuple{4096, 4096, 4096}, std::tuple{512, 512, 512}, std::tuple{128, 256, 256}}) {
      const double flops = 2.0 * mm * nn * kk;
      const double t =
          flops / (peak * fraction * gemm_efficiency_factor(m.truth, kind, flops)) * noise.factor();
      j["gemms"].push_back({{"m", mm},
                            {"n", nn},
                            {"k", kk},
                            {"batch", 1},
                            {"dtype", "float16"},
                            {"operator_kind", to_string(kind)},
                            {"time_seconds", t},
                            {"flops", flops},
                            {"flops_per_second", flops / t}});
    }
  }
  j["elementwise"] = nlohmann::ordered_json::array();
  for (double bytes : {1 << 24, 1 << 26, 1 << 28}) {
    const double t = bytes / m.cluster.gpu.hbm_bytes_per_second * noise.factor();
    j["elementwise"].push_back({{"bytes", bytes}, {"time_seconds", t}, {"bytes_per_second", bytes / t}});
  }
  j["copies"] = nlohmann::ordered_json::array();
  j["overlap"] = nlohmann::ordered_json::array();
  for (const auto& [compute, comm] : {std::pair{0.1, 0.05}, std::pair{0.08, 0.12}, std::pair{0.2, 0.07}}) {
    const double together =
        (std::max(compute, comm) + m.truth.overlap_slowdown * std::min(compute, comm)) * noise.factor();
    j["overlap"].push_back({{"collective_bytes", 67108864},
                            {"compute_alone_seconds", compute},
                            {"comm_alone_seconds", comm},
                            {"compute_with_comm_seconds", compute >= comm ? together : compute * 1.05},
                            {"comm_with_compute_seconds", comm > compute ? together : comm * 1.05}});
  }
  j["reserve_bytes"] = *m.truth.runtime_reserve_bytes;
  j["iterations"] = nlohmann::ordered_json::array();
  return j;
}

nlohmann::ordered_json iterations(const SyntheticMachine& m, const Scenario& scenario,
                                  const std::string& scenario_file,
                                  const std::vector<std::string>& strategies) {
  Noise noise(m.seed + 1, m.noise);
  nlohmann::ordered_json j;
  j["format"] = "shardscope-measurements";
  j["version"] = 1;
  j["machine"] = machine_json(m);
  j["iterations"] = nlohmann::ordered_json::array();
  const Calibration own;  // the scenario's own (none): what the executor planned with
  for (const std::string& name : strategies) {
    const StrategyResult planned =
        plan_strategy(ValidScenario(scenario), own, space_by_name(name, scenario.training));
    Plan plan = planned.plan;
    plan.strategy = name;
    const PlanPrediction truth = evaluate_plan(ValidScenario(scenario), m.truth, plan);
    const IterationProgram program =
        build_iteration_program(ValidScenario(scenario), m.truth, plan,
                                ProgramOptions{scenario.execution.prefetch_depth, !scenario.execution.overlap,
                                               scenario.execution.bucket_bytes});
    const CollectiveCost cost(scenario.cluster, plan.group_size, m.truth);
    nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const Task& t = program.tasks[i];
      const bool comm = t.stream == Task::Stream::comm || t.total_bytes > 0;
      const double seconds =
          (comm ? cost.seconds(t.kind, t.group, t.total_bytes) : t.compute_seconds) * noise.factor();
      tasks.push_back({{"name", task_name(program, i, 0)},
                       {"stream", comm ? "comm" : "compute"},
                       {"seconds", seconds},
                       {"kind", comm ? op_name(t.kind) : "compute"},
                       {"bytes", t.total_bytes}});
    }
    const double iteration = truth.iteration_seconds * noise.factor();
    j["iterations"].push_back(
        {{"scenario", scenario_file},
         {"strategy", name},
         {"plan_digest", format_digest(plan_digest(plan))},
         {"micro_batch", plan.micro_batch},
         {"micro_steps", plan.gradient_accumulation_steps},
         {"iteration_seconds", iteration},
         {"iteration_seconds_per_rank", nlohmann::ordered_json::array({iteration})},
         {"peak_bytes", truth.peak_memory_bytes},
         {"peak_bytes_per_rank", nlohmann::ordered_json::array({truth.peak_memory_bytes})},
         {"tasks", tasks}});
  }
  return j;
}

}  // namespace shardscope::testing
