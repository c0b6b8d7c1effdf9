// export_plan: the placements, what the target cannot express, the header, then the target's writer.
#include "planner/report/plan_export.hpp"

#include "planner/report/internal/export_writers.hpp"

namespace shardscope {

PlanExport export_plan(const Scenario& scenario, const Plan& plan, ExportFormat format) {
  PlanExport out;
  const std::vector<exporting::Placement> placements = exporting::placements(scenario, plan, out.unexpressed);
  const exporting::Dominant dominant = exporting::dominant_placement(placements);
  if (format != ExportFormat::fsdp2) {
    for (std::string& note : exporting::single_policy_notes(format, scenario, dominant))
      out.unexpressed.push_back(std::move(note));
  }
  const std::vector<std::string> header = exporting::header_lines(scenario, plan, format, out.unexpressed);
  switch (format) {
    case ExportFormat::fsdp2:
      out.text = exporting::fsdp2_module(scenario, plan, header, placements);
      break;
    case ExportFormat::torchtitan:
      out.text = exporting::torchtitan_toml(scenario, plan, header, dominant);
      break;
    case ExportFormat::deepspeed:
      out.text = exporting::deepspeed_json(scenario, plan, header, dominant);
      break;
  }
  return out;
}

}  // namespace shardscope
