// The lines and rows of `shardscope plan`'s text report, and the report put together from them.
#include "present/plan_text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "planner/core/units.hpp"
#include "planner/report/uncertainty.hpp"
#include "present/operator_rows.hpp"
#include "present/text_table.hpp"

namespace shardscope::present {

using units::format_bytes;
using units::format_duration;

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string scenario_line(const Scenario& scenario, const std::string& gpu) {
  return "Scenario  " + scenario.name + ": " + scenario.model.name + " on " +
         std::to_string(physical_gpus(scenario)) + " x " + (gpu.empty() ? scenario.cluster.gpu.name : gpu) +
         ", memory limit " + format_bytes(static_cast<double>(scenario.training.memory_limit_bytes)) +
         " per GPU" + (scenario.mesh.sliced() ? "\nMesh      " + mesh_text(scenario) : "");
}

std::string plan_line(const Scenario& scenario, const Plan& plan) {
  return "Plan (" + plan.strategy + "), micro-batch " + std::to_string(plan.micro_batch) + " x " +
         std::to_string(plan.gradient_accumulation_steps) + " accumulation steps x " +
         std::to_string(scenario.cluster.gpus()) +
         (scenario.mesh.sliced() ? " data-parallel ranks, " : " GPUs, ") + to_string(plan.collectives) +
         " collectives";
}

std::string predicted_line(const StrategyResult& result) {
  const PlanPrediction& p = result.plan.predicted;
  std::string line = "Predicted  " + format_duration(p.iteration_seconds) + " per iteration, " +
                     fixed(p.samples_per_second, 2) + " samples/s, " + fixed(p.tokens_per_second, 0) +
                     " tokens/s, peak " + format_bytes(p.peak_memory_bytes) + " per GPU";
  if (result.allocated_peak_bytes > 0)  // PyTorch's max reserved, then its max allocated
    line += " reserved, " + format_bytes(result.allocated_peak_bytes) + " allocated";
  return line;
}

std::string communication_line(const StrategyResult& result) {
  const ProgramExposure& e = result.communication;
  if (e.rows.empty()) return {};
  const double share = e.iteration_seconds > 0 ? 100.0 * e.exposed_seconds / e.iteration_seconds : 0.0;
  std::string line = "Communication  " + format_duration(e.collective_seconds()) +
                     " of collectives per iteration, " + format_duration(e.exposed_seconds) + " exposed (" +
                     fixed(share, 1) + " % of the iteration)";
  std::vector<CollectiveExposure> rows = e.rows;
  std::stable_sort(rows.begin(), rows.end(), [](const CollectiveExposure& a, const CollectiveExposure& b) {
    return a.exposed_seconds > b.exposed_seconds;
  });
  std::string most;
  for (std::size_t i = 0; i < rows.size() && i < 3; ++i) {
    const CollectiveExposure& r = rows[i];
    if (r.exposed_seconds < 5e-4 * std::max(e.exposed_seconds, 1e-12)) break;
    most += std::string(most.empty() ? "" : ", ") + to_string(r.stage) + " " + to_string(r.kind) + " " +
            to_string(r.group) + " " + format_duration(r.exposed_seconds) + " of " +
            format_duration(r.seconds);
  }
  return line + (most.empty() ? ", every collective hidden" : ": " + most);
}

std::string adopted_line(const StrategyResult& best) {
  if (best.adopted_from.empty()) return {};
  return "This is " + best.adopted_from +
         "'s plan: the search's pick, priced with its real neighbours, takes " +
         format_duration(best.search_pick.iteration_seconds) + " (" +
         fixed(best.search_pick.samples_per_second, 2) + " samples/s)";
}

std::string search_line(const StrategyResult& best) {
  const double objective = best.search_seconds;
  const double gap = objective > 0 ? 100.0 * (objective - best.lower_bound_seconds) / objective : 0.0;
  return "Search (neighbours priced alike): objective " + format_duration(objective) + ", lower bound " +
         format_duration(best.lower_bound_seconds) + ", gap " + fixed(gap, 3) + " %";  // as optimality.gap
}

std::string tried_micro_batches(const StrategyResult& result) {
  const auto& rows = result.batches;
  if (rows.empty()) return "no micro-batch (none is allowed)";
  std::string out = rows.size() == 1 ? "micro-batch " : "micro-batches ";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += i + 1 == rows.size() ? " and " : ", ";
    out += std::to_string(rows[i].micro_batch);
  }
  return out;
}

std::string no_fit_text(const Scenario& scenario, const StrategyResult& result) {
  const double limit = static_cast<double>(scenario.training.memory_limit_bytes);
  std::string out = "tried " + tried_micro_batches(result) + "; the smallest plan needs " +
                    format_bytes(result.minimum_memory_bytes) + " per GPU";
  if (result.minimum_memory_bytes > limit)
    out += ", " + format_bytes(result.minimum_memory_bytes - limit) + " over";
  return out + " the memory limit of " + format_bytes(limit);
}

std::string no_fit_bytes(const Scenario& scenario, const StrategyResult& result) {
  return "tried " + tried_micro_batches(result) + "; the smallest plan needs " +
         std::to_string(static_cast<std::int64_t>(result.minimum_memory_bytes)) +
         " bytes per GPU, the memory limit is " + std::to_string(scenario.training.memory_limit_bytes) +
         " bytes";
}

std::vector<std::string> batch_table_header() {
  return {"micro-batch", "steps", "status", "iteration", "samples/s", "peak memory"};
}

std::vector<std::string> batch_row_cells(const BatchRow& row) {
  const bool solved = row.status == BatchStatus::solved;
  return {std::to_string(row.micro_batch),
          std::to_string(row.gradient_accumulation_steps),
          std::string(batch_status_name(row.status)),
          solved ? format_duration(row.iteration_seconds) : "-",
          solved ? fixed(row.samples_per_second, 2) : "-",
          solved ? format_bytes(row.peak_memory_bytes) : "-"};
}

std::vector<std::string> baseline_table_header() {
  return {"strategy",     "batch",     "collectives", "iteration",
          "exposed comm", "samples/s", "peak memory", "vs FSDP"};
}

double fsdp_samples_per_second(const PlanReport& report) {
  double fsdp = 0;
  for (const StrategyResult& b : report.baselines) {
    if (b.strategy == "fsdp" && b.fits) fsdp = b.plan.predicted.samples_per_second;
  }
  return fsdp;
}

namespace {

std::vector<std::string> fitting_row(const std::string& name, const StrategyResult& result, double fsdp) {
  const Plan& plan = result.plan;
  const PlanPrediction& p = plan.predicted;
  const ProgramExposure& e = result.communication;
  return {name,
          std::to_string(plan.micro_batch),
          to_string(plan.collectives),
          format_duration(p.iteration_seconds),
          e.rows.empty() ? "-" : format_duration(e.exposed_seconds),
          fixed(p.samples_per_second, 2),
          format_bytes(p.peak_memory_bytes),
          fsdp > 0 ? fixed(p.samples_per_second / fsdp, 2) + "x" : "-"};
}

// Without a global batch every strategy runs the scenario's micro-steps per optimizer step, and the ranking
// depends on that count: more steps amortise the once-per-step reductions and optimizer updates, fewer
// expose them (one step turned MiCS from behind FSDP to 1.27x ahead of it on a 13B model).
std::string accumulation_note(const Scenario& scenario) {
  const int steps = scenario.training.gradient_accumulation_steps;
  return "No global batch given: every strategy takes " + std::to_string(steps) + " accumulation step" +
         (steps == 1 ? "" : "s") +
         " per optimizer step, and the ranking depends on that count\n(training.global_batch "
         "compares them at one global batch).";
}

}  // namespace

std::string faster_line(const Scenario& scenario, const PlanReport& report) {
  const PlanPrediction& p = report.best.plan.predicted;
  const ThroughputUncertainty u =
      throughput_uncertainty(scenario, p.tokens_per_second, report.calibration_error);
  std::vector<std::string> names;
  std::vector<double> rates;
  for (const StrategyResult& b : report.baselines) {
    if (!b.fits) continue;
    names.push_back(b.strategy);
    rates.push_back(b.plan.predicted.samples_per_second);
  }
  return probability_faster_text(u, p.samples_per_second, names, rates);
}

std::vector<std::string> plan_row_cells(const StrategyResult& best, double fsdp_samples_per_second) {
  return fitting_row("shardscope", best, fsdp_samples_per_second);
}

std::vector<std::string> baseline_row_cells(const Scenario& scenario, const StrategyResult& b,
                                            double fsdp_samples_per_second) {
  if (b.fits) return fitting_row(b.strategy, b, fsdp_samples_per_second);
  // Its smallest plan at the first micro-batch it tried.
  return {b.strategy,
          b.batches.empty() ? "-" : std::to_string(b.batches.front().micro_batch),
          to_string(scenario_collectives(scenario)),
          "does not fit",
          "-",
          "-",
          format_bytes(b.minimum_memory_bytes),
          "short " + format_bytes(b.shortfall_bytes)};
}

std::string baselines_title(const PlanReport& report) {
  const Plan& plan = report.best.plan;
  if (report.batch_policy == BatchPolicy::equal) {
    return "Baselines under the same model at the plan's micro-batch " + std::to_string(plan.micro_batch) +
           " x " + std::to_string(plan.gradient_accumulation_steps) +
           " steps (batch policy equal; speed-up over FSDP)";
  }
  return "Baselines under the same model, each at its own best micro-batch (batch policy own; speed-up over "
         "FSDP)";
}

void write_plan_text(const Scenario& scenario, const PlanReport& report, std::ostream& os,
                     const std::string& gpu) {
  os << scenario_line(scenario, gpu) << "\n";
  const StrategyResult& best = report.best;
  if (!best.fits) {
    os << "\nNo plan fits: " << no_fit_text(scenario, best) << ".\n";
    return;
  }
  const Plan& plan = best.plan;
  os << "\n" << plan_line(scenario, plan) << "\n\n";
  TextTable ops(operator_table_header());
  for (const OperatorRow& row : group_operators(scenario, plan, best.operator_costs))
    ops.add(operator_row_cells(plan, best.operator_costs, row));
  ops.print(os);
  os << "\n" << predicted_line(best) << "\n";
  if (const std::string line = communication_line(best); !line.empty()) os << line << "\n";
  os << "Uncertainty  "
     << uncertainty_text(scenario, throughput_uncertainty(scenario, plan.predicted.tokens_per_second,
                                                          report.calibration_error))
     << "\n";
  if (!best.adopted_from.empty()) os << adopted_line(best) << "\n";
  os << search_line(best) << "\n";
  os << "\nBatch sizes scanned (" << best.batches.size() << ")\n\n";
  TextTable batches(batch_table_header());
  for (const BatchRow& row : best.batches) batches.add(batch_row_cells(row));
  batches.print(os);
  if (report.baselines.empty()) return;
  const double fsdp = fsdp_samples_per_second(report);
  os << "\n" << baselines_title(report) << "\n\n";
  TextTable table(baseline_table_header());
  table.add(plan_row_cells(best, fsdp));
  for (const StrategyResult& b : report.baselines) table.add(baseline_row_cells(scenario, b, fsdp));
  table.print(os);
  if (const std::string line = faster_line(scenario, report); !line.empty()) os << "\n" << line << "\n";
  if (scenario.training.global_batch == 0) os << "\n" << accumulation_note(scenario) << "\n";
}

}  // namespace shardscope::present
