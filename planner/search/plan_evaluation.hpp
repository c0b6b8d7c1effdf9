// A whole plan's price (its scheduled program under the topology model) and the plans the search builds.
#pragma once

#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
#include "planner/program/exposure.hpp"
#include "planner/search/batch_row.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {

// A whole plan under the topology model: its iteration time is its program scheduled on two streams with
// uncontended collectives (what the simulator runs), so neighbours that share a window are priced as they
// are (the search's per-operator sum assumed alike neighbours); its peak memory is the program's, over
// every order its streams can run in (program/memory_peak.hpp; the search's per-operator transient is a
// bound on it). The paper model is separable: its plan time is the sum of its operators' costs.
struct WholePlan {
  double seconds = 0;
  double peak_bytes = 0;  // runtime reserve included
};
WholePlan scheduled_plan(const ValidScenario& scenario, const Calibration& calibration, const Plan& plan);

// Whether whole plans are priced by their schedule (the topology model) rather than by the search's sum.
bool schedules_plans(const Scenario& scenario);

// The plan's peak of allocated tensors (program_allocated_peak_bytes of its iteration program); 0 when the
// scenario's cost model does not schedule plans (the paper model has no program).
double plan_allocated_peak_bytes(const ValidScenario& scenario, const Calibration& calibration,
                                 const Plan& plan);

// What a whole plan's program shows besides its time and reserved peak: its allocated peak
// (program_allocated_peak_bytes) and which collectives it waits for (program_exposure). Zeros when the
// scenario's cost model does not schedule plans.
struct PlanProgramFigures {
  double allocated_peak_bytes = 0;
  ProgramExposure exposure;
};
PlanProgramFigures plan_program_figures(const ValidScenario& scenario, const Calibration& calibration,
                                        const Plan& plan);

// The forward's share of one micro-step's compute in the plan's program: its forward tasks' seconds over
// every compute task's of the step (recomputes go with the backward). 1/3 when the cost model has no program.
double plan_forward_share(const ValidScenario& scenario, const Calibration& calibration, const Plan& plan);

// Each class's picked choice of an instance.
std::vector<OperatorChoice> picked_choices(const PlanInstance& inst, const std::vector<int>& picks);

// The plan of one solved batch size, with the predicted figures of its row.
Plan make_plan(const Scenario& scenario, const SearchSpace& space, const PlanInstance& inst,
               const std::vector<int>& picks, const BatchRow& row);

// Copies the configuration fields (digests included) that record_plan_configuration computed once.
void copy_plan_configuration(Plan& plan, const Plan& configured);

// A plan holding only the scenario's configuration (record_plan_configuration), to copy into every plan.
Plan configured_plan(const Scenario& scenario, const Calibration& calibration);

}  // namespace shardscope
