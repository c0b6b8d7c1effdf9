// TrainingConfig: names of enums and the model-state bytes per parameter (ZeRO accounting).
#include "planner/core/training_config.hpp"

namespace shardscope {

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return "fp32";
    case Precision::mixed_bf16:
      return "mixed-bf16";
    case Precision::mixed_fp16:
      return "mixed-fp16";
  }
  return "mixed-bf16";
}

const char* to_string(OptimizerKind optimizer) { return optimizer == OptimizerKind::adam ? "adam" : "sgd"; }

const char* to_string(CheckpointPolicy policy) {
  switch (policy) {
    case CheckpointPolicy::none:
      return "none";
    case CheckpointPolicy::all:
      return "all";
    case CheckpointPolicy::search:
      return "search";
  }
  return "search";
}

StateBytesPerParameter state_bytes_per_parameter(Precision precision, OptimizerKind optimizer) {
  StateBytesPerParameter out;
  if (precision == Precision::fp32) {
    // fp32 weights and gradients; Adam keeps momentum and variance (4 + 4), SGD with momentum 4.
    out.parameter = 4;
    out.gradient = 4;
    out.optimizer = optimizer == OptimizerKind::adam ? 8 : 4;
  } else {
    // ZeRO's mixed-precision accounting: 16-bit weights and gradients; Adam keeps an fp32 master
    // copy, momentum and variance (K = 4 + 4 + 4 = 12); SGD keeps master copy and momentum (8).
    out.parameter = 2;
    out.gradient = 2;
    out.optimizer = optimizer == OptimizerKind::adam ? 12 : 8;
  }
  return out;
}

}  // namespace shardscope
