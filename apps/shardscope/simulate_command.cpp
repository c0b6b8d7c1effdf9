// `shardscope simulate SCENARIO [--plan plan.json | --strategy NAME] [--json] [--trace t.json] [--links
// l.csv] [--compare]`.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "apps/shardscope/cli_names.hpp"
#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/table.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/plan_json.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "sim/iteration_sim.hpp"

namespace shardscope::cli {
namespace {

using Json = nlohmann::ordered_json;

Json trace_json(const sim::IterationResult& r) {
  Json events = Json::array();
  std::set<int> ranks;
  for (const auto& e : r.trace) ranks.insert(e.rank);
  for (int rank : ranks) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", rank},
                      {"args", {{"name", "GPU " + std::to_string(rank)}}}});
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"name", "compute"}}}});
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", rank},
                      {"tid", 1},
                      {"args", {{"name", "communication"}}}});
  }
  for (const auto& e : r.trace) {
    events.push_back({{"name", e.name},
                      {"cat", e.stream == 0 ? "compute" : "comm"},
                      {"ph", "X"},
                      {"ts", e.start_seconds * 1e6},
                      {"dur", (e.end_seconds - e.start_seconds) * 1e6},
                      {"pid", e.rank},
                      {"tid", e.stream}});
  }
  for (const auto& m : r.memory) {
    Json args;
    for (std::size_t c = 0; c < kMemoryCategories; ++c) {
      args[to_string(static_cast<MemoryCategory>(c))] = m.bytes[c];
    }
    events.push_back({{"name", "memory (bytes)"},
                      {"ph", "C"},
                      {"ts", m.time_seconds * 1e6},
                      {"pid", m.rank},
                      {"args", args}});
  }
  return Json{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace

Registered register_simulate(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("simulate", "Simulate one training iteration of a plan on the cluster (SimGrid)");
  struct Options {
    std::string scenario, plan, strategy, trace, links;
    bool json = false, serial = false, compare = false;
    int prefetch = -1;
    std::string bucket;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("scenario", o->scenario, "Scenario YAML file")->required();
  auto* plan_opt = cmd->add_option("--plan", o->plan, "Plan JSON written by `shardscope plan --out`");
  cmd->add_option("--strategy", o->strategy, "A strategy from the registry instead: " + strategy_help())
      ->check(strategy_check())
      ->excludes(plan_opt);
  cmd->add_option("--prefetch", o->prefetch,
                  "Prefetch depth (default: the scenario's planner.prefetch_depth)");
  cmd->add_option("--bucket", o->bucket,
                  "Gradient bucket size, e.g. 25MB (default: reduce each slice alone)");
  cmd->add_flag("--serial", o->serial, "One stream per GPU: no overlap of communication and compute");
  cmd->add_option("--trace", o->trace, "Write a Chrome/Perfetto trace (Trace Event JSON)");
  cmd->add_option("--links", o->links, "Write bytes and utilisation per link direction as CSV");
  cmd->add_flag("--compare", o->compare, "Print the planner's prediction next to the simulation");
  cmd->add_flag("--json", o->json, "Print JSON");
  return {
      cmd, [o]() {
        const Scenario scenario = load_scenario_file(o->scenario);
        const Calibration calibration = scenario_calibration(scenario.planner.calibration_file);
        Plan plan;
        if (!o->plan.empty()) {
          plan = load_plan_file(o->plan, scenario.model);
        } else {
          SearchSpace space;
          try {
            space = o->strategy.empty() ? full_space(scenario.training)
                                        : space_by_name(o->strategy, scenario.training);
          } catch (const std::invalid_argument& e) {
            throw InputError("--strategy", 0, "strategy", e.what());
          }
          const StrategyResult r = plan_strategy(scenario, calibration, space);
          if (!r.fits) {
            throw NothingFits(
                scenario.source_file + ": strategy " + space.name + " does not fit the memory limit (needs " +
                std::to_string(static_cast<std::int64_t>(r.minimum_memory_bytes)) + " bytes per GPU)");
          }
          plan = r.plan;
        }
        sim::IterationOptions options;
        options.prefetch_depth = o->prefetch >= 0 ? o->prefetch : scenario.planner.prefetch_depth;
        options.overlap = !o->serial;
        if (!o->bucket.empty()) {
          try {
            options.bucket_bytes = static_cast<double>(units::parse_bytes(o->bucket));
          } catch (const std::invalid_argument& e) {
            throw InputError("--bucket", 0, "bucket", e.what());
          }
        }
        const sim::IterationResult r = sim::simulate_iteration(scenario, calibration, plan, options);

        // The planner's prediction of the same plan (for --compare and the JSON).
        const PlanPrediction predicted = evaluate_plan(scenario, calibration, plan);
        const double predicted_seconds = predicted.iteration_seconds;
        const double predicted_peak = predicted.peak_memory_bytes;
        if (!o->trace.empty()) {
          std::ofstream out(o->trace);
          if (!out) throw std::runtime_error("cannot write " + o->trace);
          out << trace_json(r).dump() << "\n";
        }
        if (!o->links.empty()) {
          std::ofstream out(o->links);
          if (!out) throw std::runtime_error("cannot write " + o->links);
          out << "link,direction,bandwidth_bytes_per_second,bytes,utilisation\n";
          char row[512];
          for (const sim::LinkUsage& u : r.links) {
            std::snprintf(row, sizeof row, "%s,%s,%.17g,%.17g,%.6f\n", u.link.c_str(), u.direction.c_str(),
                          u.bytes_per_second, u.bytes, u.utilisation);
            out << row;
          }
        }
        double peak = 0, compute = 0, exposed = 0;
        for (const auto& g : r.gpus) {
          peak = std::max(peak, g.peak_memory_bytes);
          compute = std::max(compute, g.compute_seconds);
          exposed = std::max(exposed, g.exposed_comm_seconds);
        }
        if (o->json) {
          Json j;
          j["scenario"] = scenario.name;
          j["strategy"] = plan.strategy;
          j["iteration_seconds"] = r.iteration_seconds;
          j["samples_per_second"] = r.samples_per_second;
          j["tokens_per_second"] = r.tokens_per_second;
          j["planner"] = {{"iteration_seconds", predicted_seconds}, {"peak_memory_bytes", predicted_peak}};
          j["activities"] = r.activities;
          j["gpus"] = Json::array();
          for (const auto& g : r.gpus) {
            j["gpus"].push_back({{"rank", g.rank},
                                 {"peak_memory_bytes", g.peak_memory_bytes},
                                 {"compute_seconds", g.compute_seconds},
                                 {"exposed_comm_seconds", g.exposed_comm_seconds}});
          }
          std::cout << j.dump(2) << "\n";
          return;
        }
        std::cout << "Simulated " << plan.strategy << " on " << scenario.cluster.gpus() << " x "
                  << scenario.cluster.gpu.name << ", micro-batch " << plan.micro_batch << " x "
                  << plan.gradient_accumulation_steps << " steps, "
                  << (options.overlap ? "compute and communication streams, prefetch " +
                                            std::to_string(options.prefetch_depth)
                                      : std::string("one stream (serial)"))
                  << "\n\n";
        char line[160];
        std::snprintf(line, sizeof line,
                      "  iteration %s, %.2f samples/s, %.0f tokens/s, %lld SimGrid activities\n",
                      units::format_duration(r.iteration_seconds).c_str(), r.samples_per_second,
                      r.tokens_per_second, static_cast<long long>(r.activities));
        std::cout << line;
        std::cout << "  per GPU (max over ranks): compute " << units::format_duration(compute)
                  << ", exposed communication " << units::format_duration(exposed) << ", peak memory "
                  << units::format_bytes(peak) << "\n";
        if (o->compare) {
          std::cout << "\n";
          Table t({"", "planner", "simulator", "difference"});
          std::snprintf(line, sizeof line, "%+.2f %%",
                        100 * (r.iteration_seconds - predicted_seconds) / predicted_seconds);
          t.add({"iteration time", units::format_duration(predicted_seconds),
                 units::format_duration(r.iteration_seconds), line});
          std::snprintf(line, sizeof line, "%+.2f %%", 100 * (peak - predicted_peak) / predicted_peak);
          t.add({"peak memory / GPU", units::format_bytes(predicted_peak), units::format_bytes(peak), line});
          t.print(std::cout);
        }
      }};
}

}  // namespace shardscope::cli
