// `plan` of a pipelined scenario (parallelism.pipeline): the pipeline search, its tables or JSON.
#pragma once

#include <optional>
#include <ostream>

#include "apps/shardscope/output_file.hpp"
#include "planner/core/scenario.hpp"
#include "planner/report/time_to_train.hpp"

namespace shardscope::cli {

// The files `plan` of a pipelined scenario writes when asked: the search's JSON, the fastest pipeline's run.
struct PipelineFiles {
  const OutputFile* plan = nullptr;
  const OutputFile* trace = nullptr;
};

// Plans every pipeline `whole` asks for (report/pipeline_search.hpp), writes the JSON and the fastest
// pipeline's trace (report/pipeline_trace.hpp) to `files` (those asked for, together) and the tables or the
// JSON to `out`; `threads` as SearchOptions::threads. Throws InputError (exit 2) naming parallelism.pipeline
// when no pipeline can be built, NothingFits (exit 3) when none fits (no trace is written then), UsageError
// (exit 2, after the tables, nothing written) when the trace asked for is over kMaxPipelineTraceEvents.
// With `budget`, each fitting pipeline's time to train as well (plan_budget.hpp), in the JSON and after the
// tables.
void run_pipeline_plan(const Scenario& whole, bool json, const PipelineFiles& files, int threads,
                       const std::optional<TrainingBudget>& budget, std::ostream& out);

}  // namespace shardscope::cli
