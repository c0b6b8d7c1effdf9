// Pipeline tables: each pipeline's figures, then the chosen one's stages.
#include "present/pipeline_table.hpp"

#include "planner/core/units.hpp"
#include "present/plan_text.hpp"
#include "present/text_table.hpp"

namespace shardscope::present {
namespace {

std::string range_text(int first, int layers) {
  return std::to_string(first) + "-" + std::to_string(first + layers - 1);
}

// "12 of 42 sharded, 20 checkpointed"; "42 of 42 sharded (optimizer states only), ..." where no operator
// shards its parameters or gradients (a stage under fsdp2 or deepspeed: ZeRO-1's layout).
std::string stage_plan_text(const Plan& plan) {
  int sharded = 0;
  int checkpointed = 0;
  bool whole = true;  // no sharded slice shards parameters or gradients
  for (const OperatorChoice& c : plan.operators) {
    if (c.sharded_slices > 0) ++sharded;
    if (c.sharded_slices > 0 && (c.scopes.parameters != ShardScope::N || c.scopes.gradients != ShardScope::N))
      whole = false;
    if (c.checkpoint) ++checkpointed;
  }
  return std::to_string(sharded) + " of " + std::to_string(plan.operators.size()) + " sharded" +
         (sharded > 0 && whole ? " (optimizer states only)" : "") + ", " + std::to_string(checkpointed) +
         " checkpointed";
}

// "15 / 16 / 16 / 15"; past 16 stages, runs of equal counts in order ("976 x 2 / 48 x 1"): the column of
// a thousand stages stays readable (the stage table below lists each).
std::string layers_per_stage(const PipelineOption& o) {
  std::string cut;
  if (o.stage_plans.size() <= 16) {
    for (const PipelineStagePlan& s : o.stage_plans)
      cut += (cut.empty() ? "" : " / ") + std::to_string(s.layers);
    return cut;
  }
  for (std::size_t i = 0; i < o.stage_plans.size();) {
    std::size_t j = i;
    while (j < o.stage_plans.size() && o.stage_plans[j].layers == o.stage_plans[i].layers) ++j;
    cut +=
        (cut.empty() ? "" : " / ") + std::to_string(j - i) + " x " + std::to_string(o.stage_plans[i].layers);
    i = j;
  }
  return cut;
}

void write_stages(std::ostream& out, const PipelineSearch& search, const PipelineOption& o) {
  out << "Stages of " << pipeline_text(search, o) << ": micro-batch " << o.micro_batch << " x "
      << o.micro_batches << " micro-batches, bubble " << fixed(100.0 * o.bubble_fraction, 1)
      << " %, each send " << units::format_duration(o.boundary_seconds()) << "\n";
  TextTable table({"stage", "layers", "in flight", "step", "tail", "peak memory", "plan"});
  for (std::size_t r = 0; r < o.stage_plans.size(); ++r) {
    const PipelineStagePlan& s = o.stage_plans[r];
    table.add({std::to_string(r + 1), stage_layers_text(search, o, r), fixed(s.in_flight_micro_batches, 2),
               units::format_duration(s.timing.step_seconds), units::format_duration(s.timing.tail_seconds),
               units::format_bytes(s.plan.plan.predicted.peak_memory_bytes), stage_plan_text(s.plan.plan)});
  }
  table.print(out);
}

}  // namespace

std::string stage_layers_text(const PipelineSearch& search, const PipelineOption& o, std::size_t stage) {
  const PipelineStagePlan& s = o.stage_plans[stage];
  std::string text;
  if (search.schedule == PipelineSchedule::interleaved && search.virtual_stages > 1) {
    int layers = 0;
    for (const PipelineStagePlan& each : o.stage_plans) layers += each.layers;
    for (const LayerRange& c :
         interleaved_chunks(layers, o.stages, search.virtual_stages, static_cast<int>(stage)))
      text += (text.empty() ? "" : ", ") + range_text(c.first, c.layers);
  } else {
    text = range_text(s.first_layer, s.layers);
  }
  text += " (" + std::to_string(s.layers) + ")";
  if (s.embedding) text += " + embedding";
  if (s.head) text += " + head";
  return text;
}

void write_pipeline_tables(std::ostream& out, const Scenario& whole, const PipelineSearch& search) {
  out << "Pipelines (" << whole.model.name << " on " << physical_gpus(whole) << " x "
      << whole.cluster.gpu.name
      << "; stages over whole nodes or inside one, layers cut by an exact min-max search, each stage's own "
         "exact plan; "
         "* the fastest)\n";
  TextTable table(
      {"", "mesh", "micro-batch", "bubble", "tokens/s", "iteration", "peak memory", "layers per stage"});
  for (std::size_t i = 0; i < search.options.size(); ++i) {
    const PipelineOption& o = search.options[i];
    const std::string mark = search.any_fits() && i == search.best ? "*" : "";
    if (!o.fits) {
      table.add({mark, pipeline_text(search, o), "does not fit", "", "", "", "", ""});
      continue;
    }
    table.add({mark, pipeline_text(search, o),
               std::to_string(o.micro_batch) + " x " + std::to_string(o.micro_batches),
               fixed(100.0 * o.bubble_fraction, 1) + " %", fixed(o.tokens_per_second, 0),
               units::format_duration(o.iteration_seconds), units::format_bytes(o.peak_bytes),
               layers_per_stage(o)});
  }
  table.print(out);
  for (const PipelineOption& o : search.options)
    if (!o.fits) out << "  " << pipeline_text(search, o) << " does not fit: " << o.why_not << "\n";
  for (const std::string& r : search.refused) out << "  not built: " << r << "\n";
  out << "\n";
  if (search.any_fits()) write_stages(out, search, search.options[search.best]);
}

}  // namespace shardscope::present
