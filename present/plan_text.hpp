// `shardscope plan`'s text report, line by line and row by row: the scenario line, the plan line, the
// operator table, the prediction and search lines, the batch sizes scanned, the baselines; and the whole
// report.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::present {

// printf's "%.*f": fixed(30.764, 2) is "30.76".
std::string fixed(double value, int digits);

// "Scenario  default: nd-48x1536 on 8 x TITAN RTX, memory limit 7.45 GiB per GPU"; `gpu` names the GPU
// when given (the CLI's "TITAN RTX (memory set to 16.00 GiB)" under --set cluster.gpu.memory), else the
// cluster's GPU name.
std::string scenario_line(const Scenario& scenario, const std::string& gpu = {});
// "Plan (shardscope), micro-batch 6 x 1 accumulation steps x 8 GPUs, nccl collectives"
std::string plan_line(const Scenario& scenario, const Plan& plan);
// "Predicted  1.560 s per iteration, 30.76 samples/s, 31502 tokens/s, peak 7.41 GiB per GPU reserved, 6.56
// GiB allocated" (the allocated peak only where the model schedules plans)
std::string predicted_line(const StrategyResult& result);
// "Communication  1.21 s of collectives per iteration, 0.18 s exposed (11.5 % of the iteration):
// backward-gather all-gather inter 0.12 s of 0.40 s, ..." (the three most exposed), or "" where the model
// does not schedule plans.
std::string communication_line(const StrategyResult& result);
// "This is osdp's plan: ..." when a baseline's plan was adopted, else "".
std::string adopted_line(const StrategyResult& best);
// "Search (neighbours priced alike): objective 1.586 s, lower bound 1.577 s, gap 0.538 %"
std::string search_line(const StrategyResult& best);

// "micro-batches 1, 2 and 3": the sizes a strategy's scan tried, in order.
std::string tried_micro_batches(const StrategyResult& result);
// "tried micro-batch 1; the smallest plan needs 11.25 GiB per GPU, 3.80 GiB over the memory limit of 7.45
// GiB"
std::string no_fit_text(const Scenario& scenario, const StrategyResult& result);
// The same in exact byte counts, for an error line: "tried micro-batch 1; the smallest plan needs 12079595520
// bytes per GPU, the memory limit is 8000000000 bytes".
std::string no_fit_bytes(const Scenario& scenario, const StrategyResult& result);

// The batch sizes scanned: header and one row per BatchRow.
std::vector<std::string> batch_table_header();
std::vector<std::string> batch_row_cells(const BatchRow& row);

// The baselines table: header, the plan's row ("shardscope"), and a row per baseline (fitting or not).
// `fsdp_samples_per_second` is FSDP's throughput (0: FSDP does not fit, "-" in the vs FSDP column).
std::vector<std::string> baseline_table_header();
double fsdp_samples_per_second(const PlanReport& report);
std::vector<std::string> plan_row_cells(const StrategyResult& best, double fsdp_samples_per_second);
std::vector<std::string> baseline_row_cells(const Scenario& scenario, const StrategyResult& baseline,
                                            double fsdp_samples_per_second);
// The line under the baselines table: the probability that the plan is faster than each fitting baseline,
// from the scored pairs behind its uncertainty (report/uncertainty.hpp); "" when none were scored.
std::string faster_line(const Scenario& scenario, const PlanReport& report);
// The line above the baselines table, by the report's batch policy.
std::string baselines_title(const PlanReport& report);

// The whole text report of `shardscope plan` (without --json); `gpu` as for scenario_line.
void write_plan_text(const Scenario& scenario, const PlanReport& report, std::ostream& os,
                     const std::string& gpu = {});

}  // namespace shardscope::present
