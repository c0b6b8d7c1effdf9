// Plan: the planner's output and the simulator's input — per-operator sharding choices plus batch sizes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "planner/core/execution_options.hpp"
#include "planner/core/model_states.hpp"
#include "planner/core/planner_options.hpp"
#include "planner/core/training_config.hpp"
#include "planner/core/transformer.hpp"

namespace shardscope {

// The choice for one operator. The operator is cut into `slices` equal slices (OSDP operator
// splitting); `sharded_slices` of them keep their states with `scopes` (e.g. GGG = ZDP / ZeRO-3),
// the others are replicated (NNN = DP). slices = 1, sharded_slices = 0 is plain DP.
struct OperatorChoice {
  std::string name;
  Scopes scopes{ShardScope::G, ShardScope::G, ShardScope::G};
  bool secondary_parameter_partition = false;  // ZeRO++ hpZ: keep an extra intra-group parameter shard
  int slices = 1;
  int sharded_slices = 0;
  bool checkpoint = false;

  // The replicated (NNN, plain DP) slices of a split operator, as a choice of their own: one slice,
  // nothing sharded, checkpointed as the operator is.
  OperatorChoice replicated_part() const {
    return OperatorChoice{name, Scopes{ShardScope::N, ShardScope::N, ShardScope::N}, false, 1, 0, checkpoint};
  }
};

struct PlanPrediction {
  double iteration_seconds = 0;   // one optimizer step (all micro-steps)
  double samples_per_second = 0;  // over the whole cluster
  double tokens_per_second = 0;
  double peak_memory_bytes = 0;  // per GPU
};

// Where a plan was read from, so checks made later can point at the plan file's lines.
struct PlanSource {
  std::string file;  // empty for a plan made in memory
  // Line of each key of the plan object ("group_size") and of its operators ("operators[3].slices").
  std::map<std::string, int> lines;
  int line(const std::string& key) const {
    const auto it = lines.find(key);
    return it == lines.end() ? 0 : it->second;
  }
};

// A plan records the configuration it was made for (check_plan_configuration compares it with a scenario).
struct Plan {
  std::string strategy;                 // "osdp", "fsdp", "zero-2", "paro-IIG", ...
  std::int64_t micro_batch = 1;         // samples per GPU per micro-step (the paper's b)
  int gradient_accumulation_steps = 1;  // micro-steps per optimizer step (PaRO's s)
  int group_size = 1;                   // M: GPUs per group for I-scoped states
  Precision precision = Precision::mixed_bf16;
  std::int64_t sequence_length_tokens = 0;  // tokens per sample
  CostModelKind cost_model = CostModelKind::topology;
  // How its collectives run (planner's price, simulator's flows): what it was made with (planned_collectives)
  // under execution.collectives auto, else the scenario's choice. Plan files without the key (older ones)
  // run rings.
  CollectiveModel collectives = CollectiveModel::ring;
  // The tensor-parallel mesh the plan's operators are slices of (degree 1: none; mesh.hpp). Plan files
  // without the key have none.
  TensorSlice tensor;
  std::uint64_t model_digest = 0;         // model_digest() of the model it was made for
  std::uint64_t scenario_digest = 0;      // scenario_digest() of the scenario it was made for
  std::uint64_t calibration_digest = 0;   // calibration_digest() of its calibration
  std::vector<OperatorChoice> operators;  // one per model operator, in model order
  PlanPrediction predicted;
  PlanSource source;
};

// The collectives a new plan is made with, every strategy alike: rings where the scenario says ring, else
// NCCL's model (auto and nccl), which DDP, ZeRO, FSDP, MiCS, ZeRO++, PaRO's sub-communicators and
// shardscope's own plans all run on.
inline CollectiveModel planned_collectives(const ExecutionOptions& execution) {
  return execution.collectives == CollectivesChoice::ring ? CollectiveModel::ring : CollectiveModel::nccl;
}

// The collectives a given plan runs with (planner and simulator alike): its own, recorded when it was made,
// under execution.collectives auto, else the scenario's explicit ring or nccl.
inline CollectiveModel plan_collectives(const ExecutionOptions& execution, const Plan& plan) {
  switch (execution.collectives) {
    case CollectivesChoice::ring:
      return CollectiveModel::ring;
    case CollectivesChoice::nccl:
      return CollectiveModel::nccl;
    case CollectivesChoice::automatic:
      break;
  }
  return plan.collectives;
}

}  // namespace shardscope
