// A pipeline's run as a Chrome/Perfetto trace (Trace Event JSON): a track per stage with its forwards,
// backwards, tail and sends, so that the bubble shows as the gaps (`plan --pipeline-trace`, the GUI).
#pragma once

#include <cstdint>
#include <string>

#include "planner/report/pipeline_search.hpp"

namespace shardscope {

// The run of `option` (schedule_pipeline) as Trace Event JSON: process r is the stage numbered r + 1 as the
// stage table numbers them ("stage 3: layers 40-59"), thread 0 its compute (events "F3", "B3", "F3.1"
// under the interleaved schedule, and "tail"), thread 1 its sends ("send F3" from the op's end for one
// send's time, args to_stage in the same numbering); times in microseconds. `otherData` names the pipeline
// and gives its iteration and each stage's idle share.
// Throws std::length_error when the trace would have more than kMaxPipelineTraceEvents events.
std::string pipeline_trace_json(const PipelineSearch& search, const PipelineOption& option);

// The same for another run of `option` (the simulator's, with its sends as they went), `otherData` saying
// what ran it ("simulated_by", when not empty). Throws std::length_error as above.
std::string pipeline_trace_json(const PipelineSearch& search, const PipelineOption& option,
                                const ScheduledPipeline& run, const std::string& simulated_by);

// The events pipeline_trace_json writes for `option` (each stage's forwards, backwards, tail and sends, and
// three naming events), counted without running it.
std::int64_t pipeline_trace_events(const PipelineSearch& search, const PipelineOption& option);

// The most events a pipeline trace holds (about 150 bytes each written, and a few hundred while it is built):
// 1,024 stages of 2,048 micro-batches would be 8 million, 1.6 GB of text and 18 GB of memory.
inline constexpr std::int64_t kMaxPipelineTraceEvents = 250000;

// Why `option`'s trace is not written ("its run has 8,394,752 events, over the 250,000 a trace holds: ...");
// empty when it can be.
std::string pipeline_trace_refusal(const PipelineSearch& search, const PipelineOption& option);

}  // namespace shardscope
