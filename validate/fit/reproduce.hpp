// Reproducing published measurements (validate/published/*.yaml): every row predicted by the planner (and,
// through a callback, the simulator), its error against the measured numbers, and each part's summary.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/report/pipeline_search.hpp"
#include "validate/fit/comparison.hpp"
#include "validate/fit/published.hpp"

namespace shardscope::fit {

// One row's prediction. `error` is predicted / measured - 1 (positive: shardscope predicts faster).
struct RowPrediction {
  std::string id;
  PublishedPart part = PublishedPart::fit;
  std::string model;
  int gpus = 0;
  std::int64_t micro_batch = 0;
  int accumulation_steps = 0;
  std::string checkpointing;  // the scenario's: none | all | search
  std::string strategy;       // the shardscope strategy the row's sharding maps to ("fsdp, PP 8 1f1b" with
                              // pipeline stages: the strategy of each stage)
  bool fits = false;          // false: the planner says the framework's run would not fit
  double shortfall_gib = 0;   // when it does not fit: memory the plan lacks
  std::string why_not;        // a pipeline that does not fit: the search's reason (no shortfall then)
  double measured_tokens_per_second_per_gpu = 0;
  double predicted_tokens_per_second_per_gpu = 0;             // when it fits
  double error = 0;                                           // when it fits
  std::optional<double> simulated_tokens_per_second_per_gpu;  // when a simulator ran it
  std::optional<double> simulated_error;
  std::optional<double> measured_memory_gib;  // the table's memory column (its meaning: the table's)
  double predicted_memory_gib = 0;     // planner's peak per GPU: reserved, or allocated for such a column
  std::optional<double> memory_error;  // predicted / measured - 1 where both exist
};

// Errors of a set of rows that fit: mean absolute (MAPE), mean signed (bias) and the worst.
struct ReproduceSummary {
  int rows = 0;         // rows in the set
  int predicted = 0;    // of them, predicted to fit
  int not_fitting = 0;  // rows the framework ran that the planner refuses
  double mape = 0;      // mean |error| over predicted rows
  double bias = 0;      // mean error over predicted rows
  double worst_abs_error = 0;
  std::string worst_row;
  int over_25_percent = 0;            // predicted rows with |error| > 25 %
  std::optional<double> spearman;     // rank agreement of predicted and measured throughput (>= 3 rows)
  std::optional<double> memory_mape;  // over rows with a measured memory
  int simulated = 0;                  // rows the simulator predicted
  double simulator_mape = 0, simulator_bias = 0;  // over them
  // Pairs of predicted rows from one source (every source's summary: each source's pairs, none across).
  PairSpread pairs;
};

struct SourceReproduction {
  std::string file;
  std::string source;           // the source's name and table
  std::string runtime_profile;  // the one predicted with
  std::string memory_meaning;
  std::vector<RowPrediction> rows;
  ReproduceSummary fit, held_out, all;
  bool simulated = false;  // whether the simulator's column is filled
};

// Simulates a row: its plan, or (rows with pipeline stages) its pipeline, as `shardscope simulate` runs one;
// nothing when it cannot (the row then shows no simulated value). Without `plan`, nothing is simulated.
struct RowSimulate {
  std::function<std::optional<double>(const ValidScenario& scenario, const Calibration& calibration,
                                      const Plan& plan)>
      plan;
  std::function<std::optional<double>(const Scenario& whole, const PipelineSearch& search,
                                      const PipelineOption& option, const Calibration& calibration)>
      pipeline;
  explicit operator bool() const { return static_cast<bool>(plan); }
};

// The shardscope strategy for a row's stated sharding: FULL_SHARD and FSDP/FSDP2 -> fsdp, SHARD_GRAD_OP ->
// zero-2, "FSDP 8, TP 8, PP 8" (each degree the row's) -> fsdp. Throws InputError naming the row's line for
// any other.
std::string row_strategy(const PublishedTable& table, const PublishedRow& row);

// Predicts every row of `table`: its scenario (published_scenario_text), the strategy's plan at the row's
// micro-batch, accumulation and checkpointing, priced with the options' calibration (a calibration file's
// text, parsed against each row's scenario); `simulate` (optional) gives the simulated iteration seconds of
// the plan.
// `runtime` (optional) replaces the table's runtime profile.
struct ReproduceOptions {
  std::string calibration_text;  // empty: no calibration
  std::string calibration_file;
  std::optional<RuntimeName> runtime;
  RowSimulate simulate;
};
SourceReproduction reproduce_table(const PublishedTable& table, const ReproduceOptions& options = {});

// A table's rows as checked scenarios, made once: a fit prices them under many calibrations.
struct PreparedRow {
  const PublishedRow* row;
  std::string strategy;
  // The row's scenario; for a row with pipeline stages, without them (what a calibration and a fit read
  // of it: its cluster, GPU and runtime), the whole one in `pipelined`.
  ValidScenario scenario;
  // The table's memory column is of allocated tensors (max_allocated, max_active): the prediction compared
  // with it is the allocated peak; otherwise the reserved one.
  bool allocated_memory = false;
  std::shared_ptr<const Scenario> pipelined;  // planned by the pipeline search, each stage in `strategy`
  std::string file;                           // the table's, for errors naming the row
};
struct PreparedTable {
  const PublishedTable* table;
  std::string runtime_profile;  // the one the scenarios run
  std::vector<PreparedRow> rows;
};
// Throws InputError naming the file and row for a row that cannot become a scenario.
PreparedTable prepare_table(const PublishedTable& table, std::optional<RuntimeName> runtime = std::nullopt);
// One row priced under `calibration` (and simulated when `simulate` is given).
RowPrediction predict_prepared(const PreparedRow& row, const Calibration& calibration,
                               const RowSimulate& simulate = {});
// Every row of a prepared table, with its summaries.
SourceReproduction reproduce_prepared(const PreparedTable& table,
                                      const std::vector<Calibration>& calibrations,
                                      const RowSimulate& simulate = {});

// The summary of the rows in `part` (nullopt: every row); rank agreement by comparison.hpp's spearman.
ReproduceSummary summarize_rows(const std::vector<RowPrediction>& rows, std::optional<PublishedPart> part);

}  // namespace shardscope::fit
