// A pipeline search as JSON: each pipeline's figures, its stages' layers, times and plans.
#include "planner/report/internal/pipeline_json.hpp"

#include "planner/report/internal/plan_json_tree.hpp"

namespace shardscope {
namespace {

nlohmann::ordered_json stage_json(const PipelineStagePlan& s) {
  nlohmann::ordered_json row{{"first_layer", s.first_layer},
                             {"layers", s.layers},
                             {"embedding", s.embedding},
                             {"head", s.head},
                             {"in_flight_micro_batches", s.in_flight_micro_batches},
                             {"fits", s.plan.fits}};
  if (!s.plan.fits) return row;
  row["step_seconds"] = s.timing.step_seconds;
  row["tail_seconds"] = s.timing.tail_seconds;
  row["peak_memory_bytes"] = s.plan.plan.predicted.peak_memory_bytes;
  row["plan"] = plan_to_json(s.plan.plan);
  return row;
}

nlohmann::ordered_json option_json(const PipelineSearch& search, const PipelineOption& o, bool chosen) {
  nlohmann::ordered_json row{{"mesh", pipeline_text(search, o)},
                             {"pipeline", o.stages},
                             {"tensor", o.slice.degree},
                             {"sequence_parallel", o.slice.sequence_parallel},
                             {"context", o.slice.context},
                             {"data_parallel", o.data_parallel / o.slice.context},
                             {"gpus", o.stages * o.data_parallel * o.slice.degree},
                             {"fits", o.fits},
                             {"stage_plans_made", o.stage_plans_made}};
  if (!o.fits) {
    row["why_not"] = o.why_not;
  } else {
    row["micro_batch"] = o.micro_batch;
    row["micro_batches"] = o.micro_batches;
    row["bubble_fraction"] = o.bubble_fraction;
    row["boundary_seconds"] = o.boundary_seconds();
    row["iteration_seconds"] = o.iteration_seconds;
    row["tokens_per_second"] = o.tokens_per_second;
    row["peak_memory_bytes"] = o.peak_bytes;
    nlohmann::ordered_json stages = nlohmann::ordered_json::array();
    for (const PipelineStagePlan& s : o.stage_plans) stages.push_back(stage_json(s));
    row["stages"] = std::move(stages);
  }
  row["chosen"] = chosen;
  return row;
}

}  // namespace

nlohmann::ordered_json pipeline_search_json(const PipelineSearch& search) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < search.options.size(); ++i)
    rows.push_back(option_json(search, search.options[i], search.any_fits() && i == search.best));
  return {{"schedule", to_string(search.schedule)},
          {"virtual_stages", search.virtual_stages},
          {"pipelines", std::move(rows)},
          {"refused", search.refused}};
}

}  // namespace shardscope
