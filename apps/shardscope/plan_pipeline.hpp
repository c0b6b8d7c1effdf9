// `plan` of a pipelined scenario (parallelism.pipeline): the pipeline search, its tables or JSON.
#pragma once

#include <ostream>

#include "apps/shardscope/output_file.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope::cli {

// Plans every pipeline `whole` asks for (report/pipeline_search.hpp), writes the JSON to `file` (when
// asked) and the tables or the JSON to `out`; `threads` as SearchOptions::threads. Throws InputError (exit 2)
// naming parallelism.pipeline when no pipeline can be built, NothingFits (exit 3) when none fits.
void run_pipeline_plan(const Scenario& whole, bool json, const OutputFile& file, int threads,
                       std::ostream& out);

}  // namespace shardscope::cli
