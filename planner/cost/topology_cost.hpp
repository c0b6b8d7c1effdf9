// TopologyCostModel: collectives from link classes, compute from FLOPs, PaRO scopes, slices and checkpointing.
#pragma once

#include "planner/cost/collective_cost.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/cost/cost_model.hpp"

namespace shardscope {

class TopologyCostModel : public CostModel {
 public:
  TopologyCostModel(const Scenario& scenario, const Calibration& calibration);

  ItemCost cost(std::size_t op_index, const OperatorChoice& choice, std::int64_t micro_batch) const override;
  MemoryBreakdown memory(std::size_t op_index, const OperatorChoice& choice, std::int64_t micro_batch) const override;
  double fixed_bytes() const override { return reserve_bytes_; }
  double samples_per_iteration(std::int64_t micro_batch) const override;

  // Communication seconds of one sharded slice of `slice_parameters` (exposed for tests and the simulator).
  double per_micro_step_comm_seconds(const OperatorChoice& choice, double slice_parameters, bool trainable) const;
  double per_iteration_comm_seconds(const OperatorChoice& choice, double slice_parameters, bool trainable) const;
  const CollectiveCost& collectives() const { return collectives_; }

 private:
  const Scenario& scenario_;
  const Calibration& calibration_;
  CollectiveCost collectives_;
  ComputeModel compute_;
  StateBytesPerParameter state_;
  double reserve_bytes_;
};

}  // namespace shardscope
