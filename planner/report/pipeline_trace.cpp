// Trace Event JSON of a pipeline's run: a track per stage, the bubble as its gaps.
#include "planner/report/pipeline_trace.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "planner/core/units.hpp"

namespace shardscope {
namespace {

using Json = nlohmann::ordered_json;

Json track_names(int stage, const PipelineStagePlan& plan) {
  std::string layers = plan.layers == 1 ? "layer " + std::to_string(plan.first_layer)
                                        : "layers " + std::to_string(plan.first_layer) + "-" +
                                              std::to_string(plan.first_layer + plan.layers - 1);
  if (plan.embedding) layers += " + embedding";
  if (plan.head) layers += " + head";
  Json out = Json::array();
  out.push_back({{"name", "process_name"},
                 {"ph", "M"},
                 {"pid", stage},
                 {"args", {{"name", "stage " + std::to_string(stage + 1) + ": " + layers}}}});
  out.push_back(
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", stage}, {"tid", 0}, {"args", {{"name", "compute"}}}});
  out.push_back(
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", stage}, {"tid", 1}, {"args", {{"name", "sends"}}}});
  return out;
}

Json complete(const std::string& name, const char* category, int stage, int thread, double start_seconds,
              double seconds) {
  return {{"name", name},         {"cat", category}, {"ph", "X"},    {"ts", start_seconds * 1e6},
          {"dur", seconds * 1e6}, {"pid", stage},    {"tid", thread}};
}

}  // namespace

std::int64_t pipeline_trace_events(const PipelineSearch& search, const PipelineOption& option) {
  const std::int64_t p = option.stages;
  const std::int64_t v = search.schedule == PipelineSchedule::interleaved ? search.virtual_stages : 1;
  const std::int64_t m = option.micro_batches;
  // Per micro-batch every chunk runs forward and backward; all but the model's first and last chunk's ends
  // send (2 p v - 2 over the stages), none with a single stage or sends of no time.
  const std::int64_t sends = p > 1 && option.boundary_seconds() > 0 ? m * (2 * p * v - 2) : 0;
  return p * (3 + 2 * m * v + 1) + sends;
}

std::string pipeline_trace_refusal(const PipelineSearch& search, const PipelineOption& option) {
  const std::int64_t events = pipeline_trace_events(search, option);
  if (events <= kMaxPipelineTraceEvents) return "";
  return "the run of " + pipeline_text(search, option) + " has " +
         units::format_count(static_cast<double>(events)) + " events (" + std::to_string(option.stages) +
         " stages x " + std::to_string(option.micro_batches) + " micro-batches), over the " +
         units::format_count(static_cast<double>(kMaxPipelineTraceEvents)) +
         " a trace holds; fewer micro-batches or stages give one";
}

std::string pipeline_trace_json(const PipelineSearch& search, const PipelineOption& option) {
  if (const std::string why = pipeline_trace_refusal(search, option); !why.empty())
    throw std::length_error(why);
  return pipeline_trace_json(search, option, schedule_pipeline(search, option), "");
}

std::string pipeline_trace_json(const PipelineSearch& search, const PipelineOption& option,
                                const ScheduledPipeline& run, const std::string& simulated_by) {
  if (const std::string why = pipeline_trace_refusal(search, option); !why.empty())
    throw std::length_error(why);
  const int p = static_cast<int>(run.stages.size());
  const int v = search.schedule == PipelineSchedule::interleaved ? search.virtual_stages : 1;
  const bool sends = p > 1 && option.boundary_seconds() > 0;
  Json events = Json::array();
  for (int r = 0; r < p; ++r)
    for (Json& e : track_names(r, option.stage_plans[static_cast<std::size_t>(r)])) events.push_back(e);
  Json idle = Json::array();
  for (int r = 0; r < p; ++r) {
    const ScheduledStage& stage = run.stages[static_cast<std::size_t>(r)];
    std::size_t next_send = 0;
    for (std::size_t i = 0; i < stage.ops.size(); ++i) {
      const ScheduledOp& s = stage.ops[i];
      const std::string label = op_label(s.op, v);
      Json event = complete(label, s.op.backward ? "backward" : "forward", r, 0, s.start_seconds,
                            s.end_seconds - s.start_seconds);
      event["args"] = {{"micro_batch", s.op.micro_batch}, {"chunk", s.op.chunk}};
      events.push_back(std::move(event));
      if (next_send < stage.sends.size() && stage.sends[next_send].op == i) {
        const ScheduledSend& send = stage.sends[next_send++];
        if (!sends) continue;
        Json e = complete("send " + label, "send", r, 1, send.start_seconds,
                          send.end_seconds - send.start_seconds);
        e["args"] = {{"to_stage", send.to_stage + 1}};
        events.push_back(std::move(e));
      }
    }
    events.push_back(complete("tail", "tail", r, 0, stage.tail_start_seconds,
                              stage.end_seconds - stage.tail_start_seconds));
    idle.push_back(run.iteration_seconds > 0 ? stage.idle_seconds / run.iteration_seconds : 0.0);
  }
  Json other{{"pipeline", pipeline_text(search, option)},
             {"iteration_seconds", run.iteration_seconds},
             {"idle_share_per_stage", idle}};
  if (!simulated_by.empty()) other["simulated_by"] = simulated_by;
  return Json{{"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", other}}.dump(1) + "\n";
}

}  // namespace shardscope
