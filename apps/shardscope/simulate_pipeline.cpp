// `simulate` of a pipelined scenario: the pipeline search's fastest pipeline, its stage programs and schedule
// simulated, each number beside the planner's.
#include "apps/shardscope/simulate_pipeline.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/plan_pipeline.hpp"
#include "planner/core/error.hpp"
#include "planner/core/units.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/report/pipeline_trace.hpp"
#include "present/pipeline_table.hpp"
#include "present/plan_compare.hpp"
#include "present/text_table.hpp"
#include "sim/pipeline_sim.hpp"

namespace shardscope::cli {
namespace {

using Json = nlohmann::ordered_json;

// The planner's sends: their count and mean time over the run's ops.
struct PlannedSends {
  std::int64_t count = 0;
  double mean_seconds = 0;
};

// The planner's sends as its run recorded them (ScheduledStage::sends).
PlannedSends planned_sends(const ScheduledPipeline& planned) {
  PlannedSends out;
  double total = 0;
  for (const ScheduledStage& stage : planned.stages)
    for (const ScheduledSend& send : stage.sends) {
      ++out.count;
      total += send.end_seconds - send.start_seconds;
    }
  out.mean_seconds = out.count > 0 ? total / static_cast<double>(out.count) : 0.0;
  return out;
}

Json stage_json(const PipelineStagePlan& planned, const ScheduledStage& run, const sim::SimulatedStage& s) {
  return Json{{"first_layer", planned.first_layer},
              {"layers", planned.layers},
              {"planner",
               {{"step_seconds", planned.timing.step_seconds},
                {"forward_seconds", planned.timing.forward_seconds},
                {"tail_seconds", planned.timing.tail_seconds},
                {"end_seconds", run.end_seconds},
                {"idle_seconds", run.idle_seconds}}},
              {"simulator",
               {{"step_seconds", s.step_seconds},
                {"forward_seconds", s.forward_seconds},
                {"tail_seconds", s.tail_seconds},
                {"end_seconds", s.end_seconds},
                {"idle_seconds", s.idle_seconds}}}};
}

Json simulation_json(const std::string& text, const PipelineOption& option, const ScheduledPipeline& planned,
                     const PlannedSends& sends, const sim::PipelineSimulation& simulated) {
  Json stages = Json::array();
  for (std::size_t s = 0; s < option.stage_plans.size(); ++s)
    stages.push_back(stage_json(option.stage_plans[s], planned.stages[s], simulated.stages[s]));
  return Json{{"pipeline", text},
              {"micro_batch", option.micro_batch},
              {"micro_batches", option.micro_batches},
              {"planner",
               {{"iteration_seconds", planned.iteration_seconds},
                {"sends", sends.count},
                {"mean_send_seconds", sends.mean_seconds},
                {"slowest_send_seconds", option.boundary_seconds()},
                {"send_bytes", option.boundary_bytes}}},
              {"simulator",
               {{"iteration_seconds", simulated.iteration_seconds},
                {"sends", simulated.sends},
                {"mean_send_seconds", simulated.mean_send_seconds},
                {"slowest_send_seconds", simulated.slowest_send_seconds},
                {"platform_gpus", simulated.platform_gpus},
                {"stage_programs", simulated.stage_programs}}},
              {"stages", stages}};
}

void print_text(std::ostream& out, const PipelineSearch& search, const PipelineOption& option,
                const ScheduledPipeline& planned, const PlannedSends& sends,
                const sim::PipelineSimulation& simulated) {
  out << "Pipeline " << pipeline_text(search, option) << ": " << option.micro_batches << " micro-batches of "
      << option.micro_batch << ", simulated on " << simulated.platform_gpus << " SimGrid hosts ("
      << simulated.stage_programs
      << (simulated.stage_programs == 1 ? " distinct stage program)\n\n" : " distinct stage programs)\n\n");
  present::TextTable table({"stage", "layers", "step (plan)", "step (sim)", "tail (plan)", "tail (sim)",
                            "idle (plan)", "idle (sim)"});
  for (std::size_t s = 0; s < option.stage_plans.size(); ++s) {
    const PipelineStagePlan& p = option.stage_plans[s];
    const sim::SimulatedStage& q = simulated.stages[s];
    table.add({std::to_string(s + 1), present::stage_layers_text(search, option, s),
               units::format_duration(p.timing.step_seconds), units::format_duration(q.step_seconds),
               units::format_duration(p.timing.tail_seconds), units::format_duration(q.tail_seconds),
               units::format_duration(planned.stages[s].idle_seconds),
               units::format_duration(q.idle_seconds)});
  }
  table.print(out);
  out << "\n  sends:     " << simulated.sends << " flows of " << units::format_bytes(option.boundary_bytes)
      << " (" << sends.count << " per data-parallel rank): mean "
      << units::format_duration(sends.mean_seconds) << " planned, "
      << units::format_duration(simulated.mean_send_seconds) << " simulated; slowest "
      << units::format_duration(option.boundary_seconds()) << " planned, "
      << units::format_duration(simulated.slowest_send_seconds) << " simulated\n";
  out << "  iteration: planner " << units::format_duration(planned.iteration_seconds) << ", simulator "
      << units::format_duration(simulated.iteration_seconds) << " ("
      << present::percent_change(simulated.iteration_seconds, planned.iteration_seconds) << ")\n";
}

// Why nothing can be simulated: each pipeline's reason (plan shows them in its table).
std::string nothing_fits(const Scenario& whole, const PipelineSearch& search) {
  std::string text = whole.source_file + ": no pipeline fits the memory limit";
  for (const PipelineOption& o : search.options)
    text += "\n  " + pipeline_text(search, o) + ": " + (o.why_not.empty() ? "does not fit" : o.why_not);
  return text;
}

}  // namespace

void run_pipeline_simulate(const Scenario& whole, const sim::IterationOptions& options, bool json,
                           const OutputFile& trace, std::ostream& out) {
  const Calibration calibration = scenario_calibration(whole);
  const PipelineSearch search = plan_pipelines(whole, calibration, 0);
  if (!search.any_fits()) throw NothingFits(nothing_fits(whole, search));
  const PipelineOption& option = search.options[search.best];
  if (const std::string too_large = pipeline_trace_refusal(search, option);
      trace.requested() && !too_large.empty())
    throw UsageError("--trace", too_large + "; nothing was simulated");
  const ScheduledPipeline planned = schedule_pipeline(search, option);
  const sim::PipelineSimulation simulated =
      sim::simulate_pipeline(whole, search, option, calibration, options);
  if (trace.requested())
    trace.write(pipeline_trace_json(search, option, simulated.first_ranks,
                                    "SimGrid: each stage's first GPU, its sends as their flows went"));
  const std::string text = pipeline_text(search, option);
  const PlannedSends sends = planned_sends(planned);
  if (json) {
    out << simulation_json(text, option, planned, sends, simulated).dump(2) << "\n";
  } else {
    print_text(out, search, option, planned, sends, simulated);
  }
}

}  // namespace shardscope::cli
