// Plan: the planner's output and the simulator's input — per-operator sharding choices plus batch sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/core/model_states.hpp"

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
};

struct PlanPrediction {
  double iteration_seconds = 0;   // one optimizer step (all micro-steps)
  double samples_per_second = 0;  // over the whole cluster
  double tokens_per_second = 0;
  double peak_memory_bytes = 0;  // per GPU
};

struct Plan {
  std::string strategy;                   // "osdp", "fsdp", "zero-2", "paro-IIG", ...
  std::int64_t micro_batch = 1;           // samples per GPU per micro-step (the paper's b)
  int gradient_accumulation_steps = 1;    // micro-steps per optimizer step (PaRO's s)
  int group_size = 1;                     // M: GPUs per group for I-scoped states
  std::vector<OperatorChoice> operators;  // one per model operator, in model order
  PlanPrediction predicted;
};

}  // namespace shardscope
