// plan's users' units: --tokens N gives every fitting strategy's time to train (iterations, wall time,
// GPU-hours) and --price-per-gpu-hour P its cost, in the text report and the JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "planner/core/scenario.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/report/time_to_train.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::cli {

struct BudgetFlags {
  std::string tokens;  // empty: not asked
  std::optional<double> price_per_gpu_hour;
  // The budget the flags ask for; nullopt without --tokens. Throws UsageError naming the flag when a value
  // is not a positive token count, or a price comes without --tokens.
  std::optional<TrainingBudget> budget() const;
};

void add_budget_flags(CLI::App& cmd, BudgetFlags& flags);

// "time_to_train": the budget, then the plan's and each fitting baseline's iterations, seconds, GPU-hours
// and cost.
nlohmann::ordered_json time_to_train_json(const PlanReport& report, const Scenario& scenario,
                                          const TrainingBudget& budget);
// The same as a table after the plan's report.
void write_time_to_train(std::ostream& os, const PlanReport& report, const Scenario& scenario,
                         const TrainingBudget& budget);

// A pipeline search's: the fastest pipeline's, then every other fitting pipeline's (named by pipeline_text),
// on the whole scenario's GPUs; nothing when none fits.
nlohmann::ordered_json time_to_train_json(const PipelineSearch& search, const Scenario& whole,
                                          const TrainingBudget& budget);
void write_time_to_train(std::ostream& os, const PipelineSearch& search, const Scenario& whole,
                         const TrainingBudget& budget);

}  // namespace shardscope::cli
