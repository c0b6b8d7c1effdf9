// Mesh table: one row per tensor-parallel degree with its exact plan and fastest baseline.
#include "present/mesh_table.hpp"

#include <algorithm>

#include "planner/core/units.hpp"
#include "present/plan_text.hpp"
#include "present/text_table.hpp"

namespace shardscope::present {
namespace {

std::string fastest_baseline_text(const PlanReport& report) {
  const StrategyResult* out = fastest_fitting_baseline(report);
  return out == nullptr ? "none fits" : out->strategy + " " + fixed(out->plan.predicted.tokens_per_second, 0);
}

// FSDP's throughput on the mesh (ZeRO-3 across every data-parallel rank): "does not fit", or "-" when the
// baselines were not planned.
std::string fsdp_text(const PlanReport& report) {
  const StrategyResult* fsdp = fsdp_baseline(report);
  if (fsdp == nullptr) return "-";
  return fsdp->fits ? fixed(fsdp->plan.predicted.tokens_per_second, 0) : "does not fit";
}

}  // namespace

void write_mesh_table(std::ostream& out, const MeshSearch& search) {
  const bool experts = std::any_of(search.options.begin(), search.options.end(),
                                   [](const MeshOption& o) { return o.slice.expert > 1; });
  out << "Meshes (parallelism: search; TP inside a node, then CP" << (experts ? ", EP from the DP ranks" : "")
      << "; each mesh's own exact plan; * the fastest)\n";
  TextTable table(
      {"", "mesh", "plan", "micro-batch", "tokens/s", "peak memory", "fsdp", "fastest baseline (tokens/s)"});
  for (std::size_t i = 0; i < search.options.size(); ++i) {
    const MeshOption& o = search.options[i];
    const StrategyResult& best = o.report.best;
    const std::string mark = search.any_fits() && i == search.best ? "*" : "";
    if (!best.fits) {
      table.add({mark, mesh_text(o.scenario),
                 "does not fit (short " + units::format_bytes(best.shortfall_bytes) + ")", "", "", "",
                 fsdp_text(o.report), fastest_baseline_text(o.report)});
      continue;
    }
    table.add({mark, mesh_text(o.scenario), best.plan.strategy, std::to_string(best.plan.micro_batch),
               fixed(best.plan.predicted.tokens_per_second, 0),
               units::format_bytes(best.plan.predicted.peak_memory_bytes), fsdp_text(o.report),
               fastest_baseline_text(o.report)});
  }
  table.print(out);
  for (const std::string& r : search.refused) out << "  not built: " << r << "\n";
  out << "\n";
}

}  // namespace shardscope::present
