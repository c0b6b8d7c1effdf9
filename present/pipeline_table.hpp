// The pipeline tables `plan` prints under parallelism.pipeline: one row per stage count (and mesh slice) at
// its best micro-batch, then the chosen pipeline's stages with their layers, times, peaks and plans.
#pragma once

#include <ostream>

#include "planner/report/pipeline_search.hpp"

namespace shardscope::present {

void write_pipeline_tables(std::ostream& out, const Scenario& whole, const PipelineSearch& search);

}  // namespace shardscope::present
