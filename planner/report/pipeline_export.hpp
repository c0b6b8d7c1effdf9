// A pipeline as the configuration a framework runs: torchtitan's job-config fields for its pipelining, its
// meshes and its stages' FSDP policy.
#pragma once

#include <string>

#include "planner/report/pipeline_search.hpp"
#include "planner/report/plan_export.hpp"

namespace shardscope {

// `option` (a fitting pipeline of `search` for `whole`) as torchtitan's TOML fields: local and global batch,
// the replicate, shard, tensor, context and pipeline degrees, the schedule (GPipe, 1F1B, Interleaved1F1B),
// the micro-batch, each model part's modules (module_fqns_per_model_part: the cut the search made, or the
// interleaved chunks in torchtitan's part order), the resharding and checkpointing of the placement most
// of the stages' parameters have; what one policy cannot express is listed. Throws std::invalid_argument for
// another format (pipelining is set up in code there) or a pipeline that does not fit.
// Why `format` cannot hold a pipeline (empty for torchtitan).
std::string pipeline_export_refusal(ExportFormat format);

PlanExport export_pipeline(const Scenario& whole, const PipelineSearch& search, const PipelineOption& option,
                           ExportFormat format);

}  // namespace shardscope
