// The summary of a pipelined scenario's outcome: the fastest pipeline, its tables, the stage shown.
#include "pipeline_summary.hpp"

#include <sstream>

#include "planner/core/units.hpp"
#include "present/pipeline_table.hpp"

namespace shardscope::gui {
namespace {

QString bytes(double value) { return QString::fromStdString(units::format_bytes(value)); }
QString duration(double seconds) { return QString::fromStdString(units::format_duration(seconds)); }

}  // namespace

QString pipeline_summary(const PlanOutcome& outcome) {
  const PipelineSearch& search = *outcome.pipelines;
  const PipelineOption& chosen = search.options[search.best];
  const PipelineStagePlan& stage = chosen.stage_plans[outcome.pipeline_stage];
  std::ostringstream tables;
  present::write_pipeline_tables(tables, outcome.pipelined, search);
  return QString(
             "<b>Pipeline %1</b>: micro-batch %2 × %3 micro-batches, <b>%4</b> tokens/s, <b>%5</b> per "
             "iteration, peak <b>%6</b> per GPU reserved (its run: the Timeline tab)<pre>%7</pre>"
             "Below: stage %8 of %9 (layers %10-%11), the one with the highest peak, planned alone.<br>")
      .arg(QString::fromStdString(pipeline_text(search, chosen)).toHtmlEscaped())
      .arg(chosen.micro_batch)
      .arg(chosen.micro_batches)
      .arg(chosen.tokens_per_second, 0, 'f', 0)
      .arg(duration(chosen.iteration_seconds))
      .arg(bytes(chosen.peak_bytes))
      .arg(QString::fromStdString(tables.str()).toHtmlEscaped())
      .arg(outcome.pipeline_stage + 1)
      .arg(chosen.stage_plans.size())
      .arg(stage.first_layer)
      .arg(stage.first_layer + stage.layers - 1);
}

}  // namespace shardscope::gui
