// A pipeline search as JSON: every stage count's pipeline, its stages and each stage's plan.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/report/pipeline_search.hpp"

namespace shardscope {

nlohmann::ordered_json pipeline_search_json(const PipelineSearch& search);

}  // namespace shardscope
