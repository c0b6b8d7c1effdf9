// Scenario: one model on one cluster with one training configuration, as parsed from a scenario file.
#pragma once

#include <optional>
#include <string>

#include "planner/core/cluster.hpp"
#include "planner/core/execution_options.hpp"
#include "planner/core/mesh.hpp"
#include "planner/core/model.hpp"
#include "planner/core/planner_options.hpp"
#include "planner/core/training_config.hpp"
#include "planner/core/transformer.hpp"

namespace shardscope {

struct Scenario {
  std::string name;
  std::string source_file;  // the YAML file it came from ("<string>" for parse_scenario_string)
  Model model;
  Cluster cluster;
  TrainingConfig training;
  PlannerOptions planner;
  ExecutionOptions execution;
  // The generator's input when the model was generated (a mesh slices it again); empty for operator lists.
  std::optional<TransformerSpec> transformer;
  ParallelismRequest parallelism;  // what `parallelism:` asks for
  MeshSlice mesh;                  // what `model` and `cluster` above are sliced for (mesh.hpp)
};

// Whether the scenario is a pipeline stage whose runtime keeps parameters and gradients whole through the
// step (RuntimeProfile::pipeline_shards_optimizer_only): its plans shard optimizer states only.
inline bool stage_shards_optimizer_only(const Scenario& scenario) {
  return scenario.mesh.pipeline.pipelined() && scenario.execution.runtime.pipeline_shards_optimizer_only;
}

}  // namespace shardscope
