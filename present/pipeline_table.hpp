// The pipeline tables `plan` prints under parallelism.pipeline: one row per stage count (and mesh slice) at
// its best micro-batch, then the chosen pipeline's stages with their layers, times, peaks and plans.
#pragma once

#include <ostream>
#include <string>

#include "planner/report/pipeline_search.hpp"

namespace shardscope::present {

// Stage `stage`'s layers: "0-19 (20) + embedding"; interleaved, its chunks r, r + p, ...: "0-3, 16-19 (8) +
// embedding".
std::string stage_layers_text(const PipelineSearch& search, const PipelineOption& o, std::size_t stage);

void write_pipeline_tables(std::ostream& out, const Scenario& whole, const PipelineSearch& search);

}  // namespace shardscope::present
