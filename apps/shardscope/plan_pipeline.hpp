// `plan` of a pipelined scenario (parallelism.pipeline): the pipeline search, its tables or JSON.
#pragma once

#include <ostream>

#include "apps/shardscope/output_file.hpp"
#include "planner/core/scenario.hpp"

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
void run_pipeline_plan(const Scenario& whole, bool json, const PipelineFiles& files, int threads,
                       std::ostream& out);

}  // namespace shardscope::cli
