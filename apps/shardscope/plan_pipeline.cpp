// `plan` under parallelism.pipeline: every pipeline asked for, each stage's exact plan, the fastest.
#include "apps/shardscope/plan_pipeline.hpp"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/plan_budget.hpp"
#include "apps/shardscope/plan_target.hpp"
#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/report/internal/pipeline_json.hpp"
#include "planner/report/pipeline_export.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/report/pipeline_trace.hpp"
#include "present/pipeline_table.hpp"

namespace shardscope::cli {

namespace {

// The fastest pipeline in the --export format's terms; what it cannot express on stderr.
std::string exported(const Scenario& whole, const PipelineSearch& search, const PipelineExtras& extras) {
  PlanExport out;
  try {
    out = export_pipeline(whole, search, search.options[search.best],
                          parse_name<ExportFormat>(extras.export_format).value());
  } catch (const std::invalid_argument& e) {
    throw UsageError("--export", e.what());
  }
  for (const std::string& line : out.unexpressed)
    std::cerr << "note: the " << extras.export_format << " export cannot express " << line << "\n";
  return out.text;
}

}  // namespace

PipelineSearch plan_pipelines(const Scenario& whole, const Calibration& calibration, int threads) {
  PlanRequest request;
  request.with_baselines = false;
  request.search.threads = threads;
  try {
    return search_pipelines(whole, calibration, request);
  } catch (const MeshError& e) {
    throw InputError(whole.source_file, 0, e.field(), e.what());
  }
}

void fill_pipeline_target_point(TargetPoint& point, const Scenario& whole, int threads) {
  fill_target_point(point, plan_pipelines(whole, scenario_calibration(whole), threads));
}

void run_pipeline_plan(const Scenario& whole, bool json, const PipelineFiles& files, int threads,
                       const PipelineExtras& extras, std::ostream& out) {
  const std::optional<TrainingBudget>& budget = extras.budget;
  if (!extras.export_format.empty()) {  // before planning, as plan's own export is checked
    const std::string why = pipeline_export_refusal(parse_name<ExportFormat>(extras.export_format).value());
    if (!why.empty()) throw UsageError("--export", why);
  }
  const PipelineSearch search = plan_pipelines(whole, scenario_calibration(whole), threads);
  nlohmann::ordered_json tree{{"scenario", whole.name}, {"pipeline_search", pipeline_search_json(search)}};
  if (budget && search.any_fits()) tree["time_to_train"] = time_to_train_json(search, whole, *budget);
  if (extras.target) tree["target"] = target_search_json(*extras.target);
  // A trace too large to write is refused after the tables are shown, with no file written.
  const bool traced = files.trace->requested() && search.any_fits();
  const std::string refusal = traced ? pipeline_trace_refusal(search, search.options[search.best]) : "";
  if (refusal.empty()) {
    // An export is written only of a pipeline that fits (as plan's own export), the JSON always.
    std::vector<std::pair<const OutputFile*, std::string>> written;
    if (extras.export_format.empty()) {
      written.emplace_back(files.plan, tree.dump(2) + "\n");
    } else if (search.any_fits()) {
      written.emplace_back(files.plan, exported(whole, search, extras));
    }
    if (traced) written.emplace_back(files.trace, pipeline_trace_json(search, search.options[search.best]));
    write_together(written);
  }
  if (json) {
    out << tree.dump(2) << "\n";
  } else {
    if (extras.target) {
      write_target_search(out, *extras.target, whole.cluster.name);
      out << "\n";
    }
    present::write_pipeline_tables(out, whole, search);
    if (budget && search.any_fits()) write_time_to_train(out, search, whole, *budget);
  }
  if (!refusal.empty()) throw UsageError("--pipeline-trace", refusal + "; nothing was written");
  if (!search.any_fits()) throw NothingFits(whole.source_file + ": no pipeline fits the memory limit");
}

}  // namespace shardscope::cli
