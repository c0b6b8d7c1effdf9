// A pipeline's run as a Chrome/Perfetto trace (Trace Event JSON): a track per stage with its forwards,
// backwards, tail and sends, so that the bubble shows as the gaps (`plan --pipeline-trace`, the GUI).
#pragma once

#include <string>

#include "planner/report/pipeline_search.hpp"

namespace shardscope {

// The run of `option` (schedule_pipeline) as Trace Event JSON: process r is the stage numbered r + 1 as the
// stage table numbers them ("stage 3: layers 40-59"), thread 0 its compute (events "F3", "B3", "F3.1"
// under the interleaved schedule, and "tail"), thread 1 its sends ("send F3" from the op's end for one
// send's time, args to_stage in the same numbering); times in microseconds. `otherData` names the pipeline
// and gives its iteration and each stage's idle share.
std::string pipeline_trace_json(const PipelineSearch& search, const PipelineOption& option);

}  // namespace shardscope
