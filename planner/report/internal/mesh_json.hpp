// The JSON of a tensor-parallel mesh search (`plan` under parallelism.tensor: search): one row per mesh.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/report/mesh_search.hpp"

namespace shardscope {

// {"meshes": [{tensor, sequence_parallel, data_parallel, gpus, fits, strategy, micro_batch,
// samples_per_second, tokens_per_second, peak_memory_bytes, fsdp_samples_per_second, best_baseline,
// best_baseline_samples_per_second, chosen}], "refused": ["DEGREE: why", ...]}
nlohmann::ordered_json mesh_search_json(const MeshSearch& search);

}  // namespace shardscope
