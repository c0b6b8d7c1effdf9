// Time to train and cost per strategy for `plan --tokens N [--price-per-gpu-hour P]`.
#include "apps/shardscope/plan_budget.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "apps/shardscope/option_checks.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "present/text_table.hpp"

namespace shardscope::cli {
namespace {

struct Entry {
  std::string strategy;
  TimeToTrain training;
};

// The recommended plan first, then every baseline that fits, in the report's order, each with its training.
std::vector<Entry> fitting(const PlanReport& report, const Scenario& scenario, const TrainingBudget& budget) {
  std::vector<Entry> out;
  const auto add = [&](const std::string& name, const PlanPrediction& predicted) {
    out.push_back({name, time_to_train(predicted, physical_gpus(scenario), budget)});
  };
  if (report.best.fits) add("plan (" + report.best.plan.strategy + ")", report.best.plan.predicted);
  for (const StrategyResult& b : report.baselines)
    if (b.fits) add(b.strategy, b.plan.predicted);
  return out;
}

// The fastest pipeline first, then every other that fits, in the search's order.
std::vector<Entry> fitting(const PipelineSearch& search, const Scenario& whole,
                           const TrainingBudget& budget) {
  std::vector<Entry> out;
  for (const PipelineOption* o : fitting_pipelines(search))
    out.push_back(
        {pipeline_text(search, *o), time_to_train(pipeline_prediction(*o), physical_gpus(whole), budget)});
  return out;
}

std::string money(double amount) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", amount);
  return buffer;
}

}  // namespace

std::optional<TrainingBudget> BudgetFlags::budget() const {
  if (tokens.empty()) {
    if (price_per_gpu_hour)
      throw UsageError("--price-per-gpu-hour",
                       "prices a training run, so it needs --tokens N (such as 300B)");
    return std::nullopt;
  }
  TrainingBudget b;
  try {
    b.tokens = parse_training_tokens(tokens);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--tokens", e.what());
  }
  if (price_per_gpu_hour && !std::isfinite(*price_per_gpu_hour))  // CLI11's range lets nan through
    throw UsageError("--price-per-gpu-hour", "expected a price from 0 to 1e9, got nan");
  b.price_per_gpu_hour = price_per_gpu_hour;
  return b;
}

void add_budget_flags(CLI::App& cmd, BudgetFlags& flags) {
  cmd.add_option("--tokens", flags.tokens,
                 "Tokens to train on (such as 300B, 15T or 1e12): prints each fitting strategy's iterations, "
                 "wall time and GPU-hours")
      ->check(non_empty("a token count such as 300B"));
  cmd.add_option("--price-per-gpu-hour", flags.price_per_gpu_hour,
                 "Price of one GPU for one hour (any currency): with --tokens, each strategy's cost")
      ->check(CLI::Range(0.0, kMaxPricePerGpuHour));
}

namespace {

nlohmann::ordered_json entries_json(const std::vector<Entry>& entries, const Scenario& scenario,
                                    const TrainingBudget& budget) {
  nlohmann::ordered_json j;
  j["tokens"] = budget.tokens;
  if (budget.price_per_gpu_hour) j["price_per_gpu_hour"] = *budget.price_per_gpu_hour;
  j["gpus"] = physical_gpus(scenario);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Entry& e : entries) {
    const TimeToTrain& t = e.training;
    nlohmann::ordered_json row = {{"strategy", e.strategy},
                                  {"tokens_per_iteration", t.tokens_per_iteration},
                                  {"iterations", t.iterations},
                                  {"seconds", t.seconds},
                                  {"gpu_hours", t.gpu_hours}};
    if (t.cost) row["cost"] = *t.cost;
    rows.push_back(std::move(row));
  }
  j["strategies"] = std::move(rows);
  return j;
}

void write_entries(std::ostream& os, const std::vector<Entry>& entries, const char* first_column,
                   const Scenario& scenario, const TrainingBudget& budget) {
  os << "\nTime to train on " << units::format_count(budget.tokens) << " tokens, " << physical_gpus(scenario)
     << " GPUs";
  if (budget.price_per_gpu_hour) os << ", " << money(*budget.price_per_gpu_hour) << " per GPU-hour";
  os << " (whole iterations at the predicted rate)\n\n";
  std::vector<std::string> header = {first_column, "wall time", "iterations", "GPU-hours"};
  if (budget.price_per_gpu_hour) header.emplace_back("cost");
  present::TextTable table(header);
  for (const Entry& e : entries) {
    const TimeToTrain& t = e.training;
    std::vector<std::string> cells = {e.strategy, format_wall_time(t.seconds),
                                      units::format_general(t.iterations, 15), money(t.gpu_hours)};
    if (t.cost) cells.push_back(money(*t.cost));
    table.add(std::move(cells));
  }
  table.print(os);
}

}  // namespace

nlohmann::ordered_json time_to_train_json(const PlanReport& report, const Scenario& scenario,
                                          const TrainingBudget& budget) {
  return entries_json(fitting(report, scenario, budget), scenario, budget);
}

void write_time_to_train(std::ostream& os, const PlanReport& report, const Scenario& scenario,
                         const TrainingBudget& budget) {
  write_entries(os, fitting(report, scenario, budget), "strategy", scenario, budget);
}

nlohmann::ordered_json time_to_train_json(const PipelineSearch& search, const Scenario& whole,
                                          const TrainingBudget& budget) {
  return entries_json(fitting(search, whole, budget), whole, budget);
}

void write_time_to_train(std::ostream& os, const PipelineSearch& search, const Scenario& whole,
                         const TrainingBudget& budget) {
  write_entries(os, fitting(search, whole, budget), "pipeline", whole, budget);
}

}  // namespace shardscope::cli
