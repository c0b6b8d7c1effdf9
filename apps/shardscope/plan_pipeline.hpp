// `plan` of a pipelined scenario (parallelism.pipeline): the pipeline search, its tables or JSON.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "apps/shardscope/output_file.hpp"
#include "planner/core/scenario.hpp"
#include "planner/report/node_count.hpp"
#include "planner/report/pipeline_search.hpp"
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
// What `plan` adds to the pipeline tables when asked: each fitting pipeline's time to train
// (plan_budget.hpp), the node-count search that chose the scenario's node count (plan_target.hpp), in the
// JSON and the text.
struct PipelineExtras {
  std::optional<TrainingBudget> budget;
  std::optional<TargetSearch> target;
  std::string export_format;  // --export: the plan file gets the fastest pipeline in this framework's terms
};

void run_pipeline_plan(const Scenario& whole, bool json, const PipelineFiles& files, int threads,
                       const PipelineExtras& extras, std::ostream& out);

// The pipeline search `plan` runs (no baselines; `threads` as SearchOptions::threads, 0: the machine's),
// a scenario that cannot be cut into its stages an InputError naming the field.
PipelineSearch plan_pipelines(const Scenario& whole, const Calibration& calibration, int threads);

// `point` (its nodes and GPUs set) from the pipeline search of `whole` at that count: its fastest pipeline's
// rate, micro-batch and micro-batches, or its refusal when no pipeline can be built there.
void fill_pipeline_target_point(TargetPoint& point, const Scenario& whole, int threads);

}  // namespace shardscope::cli
