// Mesh search (`parallelism: {tensor|context: search}`): the exact per-operator search on the data-parallel
// mesh that remains, once per tensor and context degree, and the fastest mesh.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/core/mesh.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {

// One degree: its sliced scenario and its whole report (the plan and every baseline on that mesh; the
// certificates hold per mesh).
struct MeshOption {
  TensorSlice slice;
  ValidScenario scenario;
  PlanReport report;
};

struct MeshSearch {
  std::vector<MeshOption> options;  // every mesh slice_scenario accepts, tensor then context degree ascending
  std::vector<std::string> refused;  // the others, each "TP 8 x CP 2: why"
  // The fastest fitting option by tokens/s (a sample is a chunk under context parallelism; ties: the
  // first); 0 when none fits.
  std::size_t best = 0;
  bool any_fits() const;
};

// A mesh's fastest fitting baseline and its FSDP baseline (nullptr when none fits / FSDP was not planned
// or does not fit): the two a mesh table sets beside the mesh's own plan.
const StrategyResult* fastest_fitting_baseline(const PlanReport& report);
const StrategyResult* fsdp_baseline(const PlanReport& report);

// Plans `whole` (unsliced; its request: parallelism.tensor search) at each candidate degree with `request`.
// Throws MeshError when no degree can be built, PlanCancelled when the observer cancels.
MeshSearch search_meshes(const Scenario& whole, const Calibration& calibration, const PlanRequest& request);

// The scenario a plan runs on: `whole` sliced for the plan's mesh where the scenario searches meshes and is
// not sliced yet; else `whole` (check_plan_configuration then compares the plan's mesh with it).
Scenario scenario_for_plan_mesh(const Scenario& whole, const TensorSlice& planned);

}  // namespace shardscope
