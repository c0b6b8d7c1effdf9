// `plan --refine K`: candidate plans simulated one child process each; the fastest under simulation wins.
#include "apps/shardscope/plan_refine.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "planner/core/units.hpp"
#include "present/plan_text.hpp"
#include "present/text_table.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::cli {
namespace {

// This program's own file, which the children run as `shardscope simulate`.
std::string own_binary() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw sim::SimulationError("--refine cannot find its own program to run: " + error.message());
  return self.string();
}

// "+1.25 %": how far the simulation is from the planner's time.
std::string signed_percent(double value, double reference) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%+.2f %%", 100 * (value - reference) / reference);
  return buffer;
}

std::string batch_text(const Plan& plan) {
  return std::to_string(plan.micro_batch) + " x " + std::to_string(plan.gradient_accumulation_steps);
}

}  // namespace

sim::RefineOutcome refine_report(PlanReport& report, const ValidScenario& scenario,
                                 const Calibration& calibration, const std::string& scenario_file,
                                 double timeout_seconds) {
  sim::SimulationJob job;
  job.scenario_file = scenario_file;
  job.options.prefetch_depth = scenario.execution.prefetch_depth;
  job.options.overlap = scenario.execution.overlap;
  job.options.bucket_bytes = scenario.execution.bucket_bytes;
  job.options.trace_ranks = "0";  // only the totals come back
  job.timeout_seconds = timeout_seconds;
  sim::ChildProcessRunner runner(own_binary());
  sim::RefineOutcome refined = sim::refine_plans(report.candidates, runner, job);
  if (refined.chosen < 0) {
    const std::string reason =
        refined.candidates.empty() ? "there were no candidates" : refined.candidates.front().failure;
    throw sim::SimulationError("--refine could simulate none of its " +
                               std::to_string(refined.candidates.size()) + " candidate plans: " + reason);
  }
  const Plan& chosen = refined.candidates[static_cast<std::size_t>(refined.chosen)].plan;
  StrategyResult& best = report.best;
  if (same_plan_choices(chosen, best.plan)) return refined;  // the planner's recommendation stands
  if (chosen.strategy != best.plan.strategy) {               // a baseline's plan
    if (best.adopted_from.empty()) best.search_pick = best.plan.predicted;
    best.adopted_from = chosen.strategy;
  } else {
    best.adopted_from.clear();
  }
  best.plan.operators = chosen.operators;
  best.plan.collectives = chosen.collectives;
  best.plan.micro_batch = chosen.micro_batch;
  best.plan.gradient_accumulation_steps = chosen.gradient_accumulation_steps;
  best.plan.predicted = chosen.predicted;
  best.operator_costs = plan_operator_costs(scenario, calibration, best.plan);
  return refined;
}

void print_refine(const sim::RefineOutcome& refined, std::ostream& os) {
  using units::format_duration;
  os << "\nRefined under simulation (" << refined.candidates.size()
     << " candidates, each simulated in its own process)\n\n";
  present::TextTable table(
      {"#", "strategy", "batch", "planner", "samples/s", "simulated", "samples/s", "difference"});
  for (std::size_t i = 0; i < refined.candidates.size(); ++i) {
    const sim::RefinedCandidate& c = refined.candidates[i];
    const PlanPrediction& p = c.plan.predicted;
    std::string mark = std::to_string(i + 1) + (static_cast<int>(i) == refined.chosen ? " *" : "");
    if (!c.simulated) {
      table.add({mark, c.plan.strategy, batch_text(c.plan), format_duration(p.iteration_seconds),
                 present::fixed(p.samples_per_second, 2), "failed", "-", "-"});
      continue;
    }
    table.add({mark, c.plan.strategy, batch_text(c.plan), format_duration(p.iteration_seconds),
               present::fixed(p.samples_per_second, 2), format_duration(c.simulated_iteration_seconds),
               present::fixed(c.simulated_samples_per_second, 2),
               signed_percent(c.simulated_iteration_seconds, p.iteration_seconds)});
  }
  table.print(os);
  for (std::size_t i = 0; i < refined.candidates.size(); ++i) {
    if (!refined.candidates[i].simulated)
      os << "  #" << i + 1 << " failed: " << refined.candidates[i].failure << "\n";
  }
  const sim::RefinedCandidate& chosen = refined.candidates[static_cast<std::size_t>(refined.chosen)];
  os << "\nRecommended: #" << refined.chosen + 1 << " (" << chosen.plan.strategy << ", micro-batch "
     << batch_text(chosen.plan) << " steps), the fastest under simulation; the plan above is this one\n";
}

nlohmann::ordered_json refine_to_json(const sim::RefineOutcome& refined) {
  nlohmann::ordered_json out;
  out["chosen"] = refined.chosen;
  out["candidates"] = nlohmann::ordered_json::array();
  for (const sim::RefinedCandidate& c : refined.candidates) {
    nlohmann::ordered_json row;
    row["strategy"] = c.plan.strategy;
    row["batch_size"] = c.plan.micro_batch;
    row["gradient_accumulation_steps"] = c.plan.gradient_accumulation_steps;
    row["planner"] = {{"iteration_seconds", c.plan.predicted.iteration_seconds},
                      {"samples_per_second", c.plan.predicted.samples_per_second},
                      {"peak_memory_bytes", c.plan.predicted.peak_memory_bytes}};
    if (c.simulated) {
      row["simulator"] = {{"iteration_seconds", c.simulated_iteration_seconds},
                          {"samples_per_second", c.simulated_samples_per_second},
                          {"peak_memory_bytes", c.simulated_peak_memory_bytes}};
    } else {
      row["failure"] = c.failure;
    }
    out["candidates"].push_back(row);
  }
  return out;
}

}  // namespace shardscope::cli
