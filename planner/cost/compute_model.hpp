// Compute time of an operator from its FLOPs and the GPU's achievable rate (calibratable per operator kind).
#pragma once

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/model.hpp"
#include "planner/core/training_config.hpp"

namespace shardscope {

class ComputeModel {
 public:
  ComputeModel(const Cluster& cluster, Precision precision, const Calibration& calibration)
      : gpu_(cluster.gpu), precision_(precision), calibration_(calibration) {}

  double flops_per_second(const Operator& op) const;
  double forward_seconds(const Operator& op, double samples) const;
  double backward_seconds(const Operator& op, double samples) const;
  // Optimizer update: memory-bound, reads and writes the owned model-state bytes once each.
  double update_seconds(double owned_state_bytes) const;

 private:
  GpuSpec gpu_;
  Precision precision_;
  Calibration calibration_;  // owned: callers often pass a temporary
};

}  // namespace shardscope
