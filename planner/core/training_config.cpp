// TrainingConfig: the model-state bytes per parameter (ZeRO accounting).
#include "planner/core/training_config.hpp"

namespace shardscope {

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
  out.reduce = out.gradient;  // reduced in the gradients' own dtype unless the scenario says fp32
  return out;
}

}  // namespace shardscope
