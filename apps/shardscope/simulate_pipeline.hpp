// `simulate` of a pipelined scenario (parallelism.pipeline): the fastest pipeline `plan` finds, simulated
// (sim/pipeline_sim.hpp) and shown beside the planner's numbers.
#pragma once

#include <ostream>

#include "apps/shardscope/output_file.hpp"
#include "exchange/simulation_job.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope::cli {

// Plans `whole` as `plan` does (report/pipeline_search.hpp), simulates its fastest pipeline and prints, per
// stage and for the iteration, the planner's and the simulator's times (text, or JSON with `json`); writes
// the simulated run of each stage's first GPU to `trace` when asked (pipeline_trace.hpp's format). Throws
// InputError (exit 2) when no pipeline can be built, NothingFits (exit 3) when none fits, UsageError (exit 2,
// nothing simulated) for a trace over kMaxPipelineTraceEvents, SimulationError past the simulator's limits.
void run_pipeline_simulate(const Scenario& whole, const sim::IterationOptions& options, bool json,
                           const OutputFile& trace, std::ostream& out);

}  // namespace shardscope::cli
