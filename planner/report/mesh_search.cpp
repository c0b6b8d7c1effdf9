// Tensor-parallel mesh search: one exact plan per degree, the fastest fitting mesh first.
#include "planner/report/mesh_search.hpp"

#include "planner/core/scenario_check.hpp"

namespace shardscope {

bool MeshSearch::any_fits() const {
  for (const MeshOption& o : options)
    if (o.report.best.fits) return true;
  return false;
}

const StrategyResult* fastest_fitting_baseline(const PlanReport& report) {
  const StrategyResult* out = nullptr;
  for (const StrategyResult& b : report.baselines) {
    if (b.fits &&
        (out == nullptr || b.plan.predicted.samples_per_second > out->plan.predicted.samples_per_second))
      out = &b;
  }
  return out;
}

const StrategyResult* fsdp_baseline(const PlanReport& report) {
  for (const StrategyResult& b : report.baselines)
    if (b.strategy == "fsdp") return &b;
  return nullptr;
}

MeshSearch search_meshes(const Scenario& whole, const Calibration& calibration, const PlanRequest& request) {
  MeshSearch out;
  for (const TensorSlice& slice : candidate_slices(whole, &out.refused)) {
    Scenario sliced = slice_scenario(whole, slice);
    const std::vector<ScenarioIssue> issues = scenario_issues(sliced);
    if (!issues.empty()) {  // a global batch the data-parallel ranks do not divide, ...
      out.refused.push_back(std::to_string(slice.degree) + ": " + issues.front().field + ": " +
                            issues.front().message);
      continue;
    }
    ValidScenario valid(std::move(sliced));
    PlanReport report = plan_scenario(valid, calibration, request);
    out.options.push_back(MeshOption{slice, std::move(valid), std::move(report)});
  }
  if (out.options.empty()) {
    std::string reasons;
    for (const std::string& r : out.refused) reasons += (reasons.empty() ? "" : "; ") + r;
    throw MeshError("parallelism.tensor", "no tensor-parallel degree can be built: " + reasons);
  }
  double fastest = -1;
  for (std::size_t i = 0; i < out.options.size(); ++i) {
    const StrategyResult& best = out.options[i].report.best;
    if (best.fits && best.plan.predicted.tokens_per_second > fastest) {
      fastest = best.plan.predicted.tokens_per_second;
      out.best = i;
    }
  }
  return out;
}

Scenario scenario_for_plan_mesh(const Scenario& whole, const TensorSlice& planned) {
  if (!whole.parallelism.search() || whole.mesh.sliced()) return whole;
  if (planned.whole()) return whole;
  return slice_scenario(whole, planned);
}

}  // namespace shardscope
