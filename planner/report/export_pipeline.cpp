// A pipeline as torchtitan's TOML fields: its degrees, schedule, micro-batch, each model part's modules, and
// the stages' one FSDP policy (the placement most of the stages' parameters have).
#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "planner/core/mesh.hpp"
#include "planner/core/units.hpp"
#include "planner/report/internal/export_layout.hpp"
#include "planner/report/pipeline_export.hpp"

namespace shardscope {
namespace {

const char* titan_schedule(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::gpipe:
      return "GPipe";
    case PipelineSchedule::one_f_one_b:
      return "1F1B";
    case PipelineSchedule::interleaved:
      return "Interleaved1F1B";
  }
  return "1F1B";
}

// torchtitan's model parts in order (part k on stage k mod stages under a looped schedule), each its
// modules: the embedding with the first part, the final norm and the output with the last.
std::vector<std::vector<std::string>> model_parts(const PipelineSearch& search,
                                                  const PipelineOption& option) {
  std::vector<LayerRange> ranges;
  int layers = 0;
  for (const PipelineStagePlan& s : option.stage_plans) layers += s.layers;
  if (search.schedule == PipelineSchedule::interleaved && search.virtual_stages > 1) {
    const int v = search.virtual_stages;
    ranges.resize(static_cast<std::size_t>(option.stages * v));
    for (int r = 0; r < option.stages; ++r) {
      const std::vector<LayerRange> chunks = interleaved_chunks(layers, option.stages, v, r);
      for (int c = 0; c < v; ++c)
        ranges[static_cast<std::size_t>(c * option.stages + r)] = chunks[static_cast<std::size_t>(c)];
    }
  } else {
    for (const PipelineStagePlan& s : option.stage_plans) ranges.push_back({s.first_layer, s.layers});
  }
  std::vector<std::vector<std::string>> parts;
  for (const LayerRange& range : ranges) {
    std::vector<std::string>& part = parts.emplace_back();
    if (parts.size() == 1) part.push_back("tok_embeddings");
    for (int l = range.first; l < range.first + range.layers; ++l)
      part.push_back("layers." + std::to_string(l));
  }
  parts.back().push_back("norm");
  parts.back().push_back("output");
  return parts;
}

std::string toml_list(const std::vector<std::vector<std::string>>& parts) {
  std::string out = "[\n";
  for (const std::vector<std::string>& part : parts) {
    out += "    [";
    for (std::size_t i = 0; i < part.size(); ++i) out += (i > 0 ? ", \"" : "\"") + part[i] + "\"";
    out += "],\n";
  }
  return out + "]";
}

// What FSDP2 cannot express, summed over the stages: "<what>: N operators, e.g. <op>" notes by their text
// before the count (the examples name a stage's own operators, so they are left out); others once each.
void add_stage_notes(const std::vector<std::string>& notes, std::vector<std::string>& kinds,
                     std::vector<long>& counts) {
  static const std::regex counted("^(.*): ([0-9]+) operators?(, e\\.g\\..*)?$");
  for (const std::string& n : notes) {
    std::smatch m;
    const bool is_counted = std::regex_match(n, m, counted);
    const std::string kind = is_counted ? m[1].str() : n;
    const auto it = std::find(kinds.begin(), kinds.end(), kind);
    const long count = is_counted ? std::stol(m[2].str()) : -1;
    if (it == kinds.end()) {
      kinds.push_back(kind);
      counts.push_back(count);
    } else if (count > 0) {
      counts[static_cast<std::size_t>(it - kinds.begin())] += count;
    }
  }
}

// Every stage's placements, and what FSDP2 cannot express over them.
std::vector<exporting::Placement> stage_placements(const PipelineOption& option,
                                                   std::vector<std::string>& unexpressed) {
  std::vector<exporting::Placement> all;
  std::vector<std::string> kinds;
  std::vector<long> counts;
  for (const PipelineStagePlan& s : option.stage_plans) {
    std::vector<std::string> notes;
    for (exporting::Placement& p : exporting::placements(s.scenario->scenario(), s.plan.plan, notes))
      all.push_back(std::move(p));
    add_stage_notes(notes, kinds, counts);
  }
  for (std::size_t i = 0; i < kinds.size(); ++i)
    unexpressed.push_back(counts[i] < 0
                              ? kinds[i]
                              : kinds[i] + ": " + std::to_string(counts[i]) + " operators over the stages");
  return all;
}

}  // namespace

std::string pipeline_export_refusal(ExportFormat format) {
  if (format == ExportFormat::torchtitan) return "";
  return "a pipeline exports to torchtitan only (its pipelining, meshes and per-stage FSDP come from its job "
         "config); " +
         std::string(to_string(format)) + " sets up pipelining in the training code";
}

PlanExport export_pipeline(const Scenario& whole, const PipelineSearch& search, const PipelineOption& option,
                           ExportFormat format) {
  if (const std::string why = pipeline_export_refusal(format); !why.empty()) throw std::invalid_argument(why);
  if (!option.fits) throw std::invalid_argument("the pipeline does not fit: " + option.why_not);
  PlanExport out;
  const exporting::Dominant dominant =
      exporting::dominant_placement(stage_placements(option, out.unexpressed));
  if (!dominant.differing.empty())
    out.unexpressed.push_back(
        "one FSDP policy for every stage (torchtitan): the one holding most parameters (" +
        dominant.placement.scopes + "); " + std::to_string(dominant.differing.size()) +
        " operators planned otherwise");
  const exporting::Placement& p = dominant.placement;
  const Scenario& stage = option.stage_plans.front().scenario->scenario();
  const int context = std::max(1, option.slice.context);
  const int shard_ranks = option.data_parallel / context;  // FSDP shards over dp_shard x cp
  const int group = std::min(stage.training.group_size, shard_ranks);
  const int replicate = p.mesh == "hsdp" ? shard_ranks / group : p.mesh == "replicate" ? shard_ranks : 1;
  const std::int64_t local = option.micro_batch * option.micro_batches;
  std::ostringstream text;
  text << "# shardscope: " << pipeline_text(search, option) << ", " << option.micro_batches
       << " micro-batches of " << option.micro_batch << ", predicted "
       << units::format_count(option.tokens_per_second) << " tokens/s\n";
  for (const std::string& line : out.unexpressed) text << "# cannot express: " << line << "\n";
  text << "# Field names of torchtitan's job config (2025): merge into the model's TOML.\n\n"
       << "[training]\nlocal_batch_size = " << local << "\nglobal_batch_size = " << local * shard_ranks
       << "\nseq_len = " << whole.model.sequence_length << "\nmixed_precision_param = \""
       << exporting::param_dtype(whole) << "\"\nmixed_precision_reduce = \"" << exporting::reduce_dtype(whole)
       << "\"\n\n[parallelism]\ndata_parallel_replicate_degree = " << replicate
       << "\ndata_parallel_shard_degree = " << shard_ranks / replicate
       << "\ntensor_parallel_degree = " << std::max(1, option.slice.degree)
       << "\ncontext_parallel_degree = " << context << "\npipeline_parallel_degree = " << option.stages
       << "\npipeline_parallel_schedule = \"" << titan_schedule(search.schedule)
       << "\"\npipeline_parallel_microbatch_size = " << option.micro_batch
       << "\nmodule_fqns_per_model_part = " << toml_list(model_parts(search, option))
       << "\nfsdp_reshard_after_forward = \"" << (p.reshard == "False" ? "never" : "always")
       << "\"\n\n[activation_checkpoint]\nmode = \"" << (p.checkpoint ? "full" : "none") << "\"\n";
  out.text = text.str();
  return out;
}

}  // namespace shardscope
