// TopologyCostModel: collectives from link classes, compute from FLOPs, PaRO scopes, slices and
// checkpointing.
#pragma once

#include <memory>
#include <vector>

#include "planner/cost/collective_calls.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/cost/cost_model.hpp"

namespace shardscope {

// The price of the scenario's mesh collectives: tensor parallelism on the physical cluster's intra-node
// groups of the degree, context parallelism on the data-parallel cluster's groups of C consecutive ranks,
// every group at once; null for an axis the mesh does not have.
MeshGroupCosts mesh_group_costs(const Scenario& scenario, const Calibration& calibration,
                                CollectiveModel collectives);

class TopologyCostModel : public CostModel {
 public:
  // Owns what it reads of the scenario (its operators shared, the fabric's figures, the execution options):
  // nothing of the caller's needs to outlive it.
  TopologyCostModel(const ValidScenario& scenario, const Calibration& calibration,
                    const CostModelOptions& options = {});

  ItemCost cost(std::size_t op_index, const OperatorChoice& choice, std::int64_t micro_batch) const override;
  MemoryBreakdown memory(std::size_t op_index, const OperatorChoice& choice,
                         std::int64_t micro_batch) const override;
  double fixed_bytes() const override { return reserve_bytes_; }
  std::vector<std::size_t> cost_classes() const override;
  double samples_per_iteration(std::int64_t micro_batch) const override;

  const ComputeModel& compute() const { return compute_; }
  const StateBytesPerParameter& state_bytes() const { return state_; }
  double slice_overhead_seconds() const { return calibration_.slice_overhead_seconds; }
  // Activation bytes per sample the operator keeps for its backward: all of them, or its checkpoint's. Under
  // a framework's runtime with every operator checkpointed, the framework checkpoints whole blocks: an MLP
  // after its attention keeps nothing (the block's input, kept by the attention, recomputes it).
  // Under op-level selective checkpointing a checkpointed operator keeps its selective bytes instead.
  double kept_bytes_per_sample(std::size_t op_index, const OperatorChoice& choice) const;
  // Micro-batches whose kept activations a pipeline stage holds at its peak (PipelineStage; 1 without).
  double in_flight_micro_batches() const { return in_flight_micro_batches_; }
  // Activation bytes per sample a checkpointed operator rebuilds for its backward (0 when not checkpointed):
  // all of them, or under selective checkpointing those it did not keep.
  double recomputed_bytes_per_sample(std::size_t op_index, const OperatorChoice& choice) const;
  // The share of its forward a checkpointed operator runs again (0 when not checkpointed): 1, or under
  // selective checkpointing its recomputed FLOPs over its forward FLOPs.
  double recompute_fraction(std::size_t op_index, const OperatorChoice& choice) const;
  // Workspace bytes per sample while the operator runs: its own, and under an unfused cross-entropy
  // (ExecutionOptions::cross_entropy) a second gradient of the loss's input beside the first.
  double workspace_bytes_per_sample(const Operator& op) const;

  // Communication seconds of one sharded slice of `slice_parameters`: the sums of its call lists
  // (collective_calls.hpp) per micro-step and once per iteration.
  double per_micro_step_comm_seconds(const OperatorChoice& choice, double slice_parameters, bool trainable,
                                     bool expert_parallel = false) const;
  double per_iteration_comm_seconds(const OperatorChoice& choice, double slice_parameters, bool trainable,
                                    bool expert_parallel = false) const;
  const CollectiveCost& collectives() const { return collectives_; }
  bool recompute_gathers_again() const { return recompute_gathers_again_; }
  // One slice's calls per micro-step as this runtime issues them (collective_calls.hpp).
  std::vector<CollectiveCall> micro_step_calls(const OperatorChoice& choice, double slice_parameters,
                                               bool trainable, bool expert_parallel = false) const {
    return micro_step_collectives(choice, slice_parameters, trainable, state_, recompute_gathers_again_,
                                  expert_parallel);
  }
  // Operator `op_index`'s choice as it acts: expert_parallel_choice for an expert-parallel operator.
  OperatorChoice acting_choice(std::size_t op_index, const OperatorChoice& choice) const {
    return (*operators_)[op_index].expert_parallel ? expert_parallel_choice(choice) : choice;
  }

 private:
  double previous_forward_seconds(std::size_t op_index, double samples) const;
  double previous_backward_gather_seconds(std::size_t op_index, const OperatorChoice& choice) const;
  double transient_bound_bytes(std::size_t op_index, const OperatorChoice& choice,
                               const MemoryBreakdown& memory) const;
  std::shared_ptr<const std::vector<Operator>> operators_;
  int gpus_;
  int group_size_;  // GPUs per group of PaRO's intra-group scopes
  ExecutionOptions execution_;
  Calibration calibration_;  // owned: callers often pass a temporary
  int accumulation_steps_;   // micro-steps per iteration
  CollectiveCost collectives_;
  ComputeModel compute_;
  StateBytesPerParameter state_;
  double reserve_bytes_;
  // Per operator: the most parameters of an operator within prefetch_depth positions (whose buffers may be
  // held while it runs), and the parameters of the next operator if trainable (whose gradients may still
  // be reduced during its backward); how to count their buffers (cost_model.hpp).
  std::vector<double> neighbour_parameters_;
  std::vector<double> next_trainable_parameters_;
  NeighbourBuffers neighbour_mode_;
  bool space_shards_parameters_;
  bool space_shards_gradients_;
  bool block_checkpoints_;  // a framework's runtime with checkpointing: all or layers (kept_bytes_per_sample)
  bool selective_;          // checkpointing: selective
  bool recompute_gathers_again_;    // RuntimeProfile::recompute_gathers_again
  int loss_gradients_;              // gradients of the loss's input held at once: 1 fused, 2 unfused
  double in_flight_micro_batches_;  // a pipeline stage's micro-batches whose activations are kept (1: none)
};

}  // namespace shardscope
