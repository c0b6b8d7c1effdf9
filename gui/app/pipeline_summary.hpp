// The summary line and tables of a pipelined scenario's plan outcome (PlanOutcome::pipelines).
#pragma once

#include <QString>

#include "plan_service.hpp"

namespace shardscope::gui {

// Rich text: the fastest pipeline in words (tokens/s, iteration, peak), the pipeline and stage tables as
// `plan --pp` prints them, and which stage the views below show. `outcome.pipelines` must fit.
QString pipeline_summary(const PlanOutcome& outcome);

}  // namespace shardscope::gui
