// The JSON of a tensor-parallel mesh search (`plan` under parallelism.tensor: search): one row per mesh.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/report/mesh_search.hpp"

namespace shardscope {

// {"meshes": [{tensor, sequence_parallel, context, data_parallel, gpus, fits, strategy, micro_batch,
// samples_per_second (chunks under CP), tokens_per_second, peak_memory_bytes, fsdp_tokens_per_second,
// best_baseline, best_baseline_tokens_per_second, chosen}] (the fastest by tokens/s), "refused": ["DEGREE:
// why", ...]}
nlohmann::ordered_json mesh_search_json(const MeshSearch& search);

}  // namespace shardscope
