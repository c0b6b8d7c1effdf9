// Simulation with SimGrid: the simulator's commands, `plan --refine`, `compare`'s simulated column and
// `sweep-point --simulate`, each simulation in a child or forked process (SimGrid allows one engine each).
#include "apps/shardscope/simgrid_simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "apps/shardscope/plan_refine.hpp"
#include "planner/core/mesh.hpp"
#include "sim/isolated.hpp"
#include "sim/iteration_sim.hpp"
#include "sim/pipeline_sim.hpp"
#include "sim/runner.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::cli {
namespace {

// Test hook: SHARDSCOPE_SWEEP_FAULT=simulation:K makes point K's simulations fail and simulation-hang:K never
// finish (tests/cli/sweep_fault_test.cpp; sweep_point.cpp reads the other faults).
bool simulation_fault(const char* kind, std::size_t index) {
  const char* fault = std::getenv("SHARDSCOPE_SWEEP_FAULT");
  return fault != nullptr && std::string(fault) == kind + (":" + std::to_string(index));
}

class SimGridSimulation : public Simulation {
 public:
  void add_commands(CLI::App& app, std::vector<Registered>& commands) const override {
    commands.push_back(register_collective(app));
    commands.push_back(register_simulate(app));
  }

  RefineReport refine(PlanReport& report, const ValidScenario& scenario, const Calibration& calibration,
                      const std::string& scenario_file, double timeout_seconds) const override {
    const sim::RefineOutcome refined =
        refine_report(report, scenario, calibration, scenario_file, timeout_seconds);
    std::ostringstream text;
    print_refine(refined, text);
    return {refine_to_json(refined), text.str()};
  }

  fit::Simulate compare_simulator(const std::string& scenario_file, const std::string& calibration_file,
                                  const Scenario& scenario, double timeout_seconds) const override {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) throw sim::SimulationError("compare cannot find its own program to run: " + error.message());
    auto runner = std::make_shared<sim::ChildProcessRunner>(self.string());
    sim::SimulationJob job;
    job.scenario_file = scenario_file;
    job.calibration_file = calibration_file;
    job.options.prefetch_depth = scenario.execution.prefetch_depth;
    job.options.overlap = scenario.execution.overlap;
    job.options.bucket_bytes = scenario.execution.bucket_bytes;
    job.options.trace_ranks = "0";
    job.timeout_seconds = timeout_seconds;
    return [runner, job](const Plan& plan) -> std::optional<fit::SimulatedIteration> {
      sim::SimulationJob j = job;
      j.plan = plan;
      const sim::IterationResult r = runner->run(j);
      fit::SimulatedIteration s;
      s.iteration_seconds = r.iteration_seconds;
      for (const sim::GpuResult& g : r.gpus)
        s.peak_memory_bytes = std::max(s.peak_memory_bytes, g.peak_memory_bytes);
      return s;
    };
  }

  void simulate_point(const ValidScenario& scenario, const Calibration& calibration, const Plan& plan,
                      std::size_t point_index, nlohmann::ordered_json& metrics) const override {
    const bool fail = simulation_fault("simulation", point_index);
    const bool hang = simulation_fault("simulation-hang", point_index);
    sim::IterationOptions options;
    options.prefetch_depth = scenario.execution.prefetch_depth;
    options.overlap = scenario.execution.overlap;
    options.bucket_bytes = scenario.execution.bucket_bytes;
    try {
      const std::vector<double> values = sim::run_isolated([&] {
        if (fail) throw std::runtime_error("failed as SHARDSCOPE_SWEEP_FAULT asked");
        while (hang) std::this_thread::sleep_for(std::chrono::seconds(1));
        const sim::IterationResult r = sim::simulate_iteration(scenario, calibration, plan, options);
        double peak = 0;
        for (const sim::GpuResult& g : r.gpus) peak = std::max(peak, g.peak_memory_bytes);
        return std::vector<double>{r.iteration_seconds, r.samples_per_second, peak};
      });
      metrics["simulated_iteration_seconds"] = values.at(0);
      metrics["simulated_samples_per_second"] = values.at(1);
      metrics["simulated_peak_memory_bytes"] = values.at(2);
    } catch (const std::exception& e) {
      metrics["simulation_error"] = e.what();
    }
  }

  fit::RowSimulate row_simulator(int max_gpus) const override {
    fit::RowSimulate out;
    // A pipeline's SimGrid hosts are its data-parallel view's GPUs (one per tensor-parallel group).
    out.pipeline = [max_gpus](const Scenario& whole, const PipelineSearch& search,
                              const PipelineOption& option,
                              const Calibration& calibration) -> std::optional<double> {
      if (physical_gpus(whole) / std::max(1, option.slice.degree) > max_gpus) return std::nullopt;
      try {
        return sim::run_isolated([&] {
                 return std::vector<double>{
                     sim::simulate_pipeline(whole, search, option, calibration, sim::IterationOptions{})
                         .iteration_seconds};
               })
            .at(0);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    };
    out.plan = [max_gpus](const ValidScenario& scenario, const Calibration& calibration,
                          const Plan& plan) -> std::optional<double> {
      if (scenario.cluster.gpus() > max_gpus) return std::nullopt;
      sim::IterationOptions options;
      options.prefetch_depth = scenario.execution.prefetch_depth;
      options.overlap = scenario.execution.overlap;
      options.bucket_bytes = scenario.execution.bucket_bytes;
      try {
        return sim::run_isolated([&] {
                 return std::vector<double>{
                     sim::simulate_iteration(scenario, calibration, plan, options).iteration_seconds};
               })
            .at(0);
      } catch (const std::exception&) {
        return std::nullopt;  // the row shows no simulated value
      }
    };
    return out;
  }

  bool explains(const std::exception& error) const override {
    return dynamic_cast<const sim::SimulationError*>(&error) != nullptr;
  }
};

}  // namespace

const Simulation& simgrid_simulation() {
  static const SimGridSimulation simulation;
  return simulation;
}

}  // namespace shardscope::cli
