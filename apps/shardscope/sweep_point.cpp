// `shardscope sweep-point GRID --index K [--simulate]` (hidden): the child process of a sweep. Resolves
// one point of the grid, plans it (and simulates each fitting strategy's plan, each in a forked process:
// SimGrid allows one engine per process) and prints its metrics as one JSON object on stdout.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>

#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/simulation.hpp"
#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/sweep_grid.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope::cli {
namespace {

using Json = nlohmann::ordered_json;

struct Options {
  std::string grid;
  std::size_t index = 0;
  std::string values;  // the point's axis values as the sweep hands them: [[path, value], ...] in JSON
  bool simulate = false;
};

// The point the sweep handed over (--values), checked against the grid: the same axes in order, each value
// one of its axis's; without --values, point `index` of the expanded grid.
GridPoint point_of(const SweepGrid& grid, const Options& o) {
  if (o.values.empty()) {
    const std::vector<GridPoint> points = expand_grid(grid);
    if (o.index >= points.size()) {
      throw UsageError("--index",
                       "the grid has " + std::to_string(points.size()) + " points; expected less than that");
    }
    return points[o.index];
  }
  const Json values = Json::parse(o.values, nullptr, false);
  const auto refuse = [&](const std::string& why) {
    throw UsageError("--values", why + " (did the grid change during the sweep?)");
  };
  if (!values.is_array() || values.size() != grid.axes.size())
    refuse("expected one value per axis of the grid");
  GridPoint point;
  point.index = o.index;
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    const Json& pair = values[a];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string() ||
        pair[0].get<std::string>() != grid.axes[a].path) {
      refuse("expected [\"" + grid.axes[a].path + "\", value] at place " + std::to_string(a));
    }
    const std::vector<std::string>& allowed = grid.axes[a].values;
    const std::string value = pair[1].get<std::string>();
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      refuse("'" + value + "' is not a value of the axis " + grid.axes[a].path);
    point.values.emplace_back(grid.axes[a].path, value);
  }
  return point;
}

// Test hook: SHARDSCOPE_SWEEP_FAULT=crash:K or hang:K makes point K die by SIGKILL or never finish, so the
// fault tests can check that a sweep turns each into an error row, and that a killed sweep leaves nothing
// running (tests/cli/sweep_fault_test.cpp; simgrid_simulation.cpp reads the simulation faults).
void inject_fault(std::size_t index) {
  const char* fault = std::getenv("SHARDSCOPE_SWEEP_FAULT");
  if (fault == nullptr) return;
  const std::string text = fault;
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || text.substr(colon + 1) != std::to_string(index)) return;
  if (text.substr(0, colon) == "crash") ::raise(SIGKILL);
  if (text.substr(0, colon) == "hang") {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

bool wanted(const std::vector<std::string>& strategies, const std::string& name) {
  return strategies.empty() || std::find(strategies.begin(), strategies.end(), name) != strategies.end();
}

Json strategy_metrics(const StrategyResult& r, double fsdp_samples_per_second) {
  Json m;
  m["fits"] = r.fits;
  if (!r.fits) {
    m["shortfall_bytes"] = r.shortfall_bytes;
    return m;
  }
  const PlanPrediction& p = r.plan.predicted;
  m["micro_batch"] = r.plan.micro_batch;
  m["accumulation_steps"] = r.plan.gradient_accumulation_steps;
  m["iteration_seconds"] = p.iteration_seconds;
  m["samples_per_second"] = p.samples_per_second;
  m["tokens_per_second"] = p.tokens_per_second;
  m["peak_memory_bytes"] = p.peak_memory_bytes;
  if (fsdp_samples_per_second > 0) m["speedup_over_fsdp"] = p.samples_per_second / fsdp_samples_per_second;
  return m;
}

Json run_point(const Options& o, const Simulation* simulation) {
  // A sweep that dies (kill -9) takes its points with it: nothing is left running.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  inject_fault(o.index);
  const SweepGrid grid = load_sweep_grid(o.grid, strategy_lookup());
  const GridResolver resolver(grid);
  const ResolvedPoint point = resolver.resolve(point_of(grid, o));
  const ValidScenario scenario(point.scenario);
  const Calibration calibration = scenario_calibration(scenario);
  // One thread: the sweep runs its points side by side, and the simulations fork from this process.
  PlanRequest request;
  request.search.threads = 1;
  const PlanReport report = plan_scenario(scenario, calibration, request);
  std::vector<const StrategyResult*> results = {&report.best};
  for (const StrategyResult& b : report.baselines) results.push_back(&b);
  double fsdp = 0;
  for (const StrategyResult* r : results) {
    if (r->strategy == "fsdp" && r->fits) fsdp = r->plan.predicted.samples_per_second;
  }
  Json out;
  out["point"] = point.id;
  Json metrics = Json::object();
  bool any_fits = false;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string name = i == 0 ? "shardscope" : results[i]->strategy;
    if (!wanted(point.strategies, name)) continue;
    Json m = strategy_metrics(*results[i], fsdp);
    any_fits = any_fits || results[i]->fits;
    if (o.simulate && results[i]->fits)
      simulation->simulate_point(scenario, calibration, results[i]->plan, o.index, m);
    metrics[name] = m;
  }
  out["status"] = any_fits ? "ok" : "does-not-fit";
  // A simulation asked for and failed is no result: the row is an error (its planner metrics kept), and
  // --retry-errors runs it again.
  for (const auto& [strategy, m] : metrics.items()) {
    if (!m.contains("simulation_error")) continue;
    out["status"] = "error";
    out["error"] = "the simulation of " + strategy + " failed: " + m["simulation_error"].get<std::string>();
    break;
  }
  out["metrics"] = metrics;
  return out;
}

}  // namespace

Registered register_sweep_point(CLI::App& app, const Simulation* simulation) {
  auto* cmd = app.add_subcommand("sweep-point", "Run one point of a sweep grid (the sweep's child process)");
  cmd->group("");  // hidden: `sweep` runs it
  auto o = std::make_shared<Options>();
  cmd->add_option("grid", o->grid, "Sweep grid YAML file")->required();
  cmd->add_option("--index", o->index, "The point's index in the expanded grid")->required();
  cmd->add_option("--values", o->values,
                  "The point's axis values, [[path, value], ...] (JSON): no expansion");
  cmd->add_flag("--simulate", o->simulate, "Also simulate each fitting strategy's plan");
  return {cmd, [o, simulation](std::ostream& out) {
            if (o->simulate && simulation == nullptr)
              throw UsageError("--simulate",
                               "needs the simulator, and this shardscope was built without SimGrid");
            out << run_point(*o, simulation).dump() << "\n";
          }};
}

}  // namespace shardscope::cli
