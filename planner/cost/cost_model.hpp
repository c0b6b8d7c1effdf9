// CostModel: time and memory of one operator under one choice (scopes, slices, checkpointing) at batch b.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/item_cost.hpp"

namespace shardscope {

// Per-GPU memory of one operator by category (bytes); resident parts live the whole iteration,
// gathered/workspace only while the operator runs.
struct MemoryBreakdown {
  double parameter_bytes = 0;
  double gradient_bytes = 0;
  double optimizer_bytes = 0;
  double activation_bytes = 0;  // kept for backward (or checkpoint inputs)
  double gathered_bytes = 0;    // gathered parameter + unreduced gradient buffers of sharded slices
  double workspace_bytes = 0;   // workspace + recomputed activations while the operator runs
  double resident() const { return parameter_bytes + gradient_bytes + optimizer_bytes + activation_bytes; }
};

// How an operator's transient counts the buffers its neighbours hold meanwhile (prefetched parameters,
// gradients still being reduced): as if they made the same choice (`alike`, the search's estimate, which a
// whole plan's peak then verifies), or the largest any choice of the space gives them (`any_choice`, a bound
// whatever they choose). The paper model has no transient term.
enum class NeighbourBuffers { alike, any_choice };

// How one model prices: the planner builds one per strategy and batch size from the same scenario.
struct CostModelOptions {
  std::optional<int>
      accumulation_steps;  // micro-steps per iteration (empty: training.gradient_accumulation_steps)
  CollectiveModel collectives = CollectiveModel::ring;  // the topology model's; the paper model has its own
  NeighbourBuffers neighbours = NeighbourBuffers::alike;
  // Under any_choice: whether the strategy's space shards parameters / gradients at all (DDP gathers
  // nothing).
  bool parameters_sharded = true;
  bool gradients_sharded = true;
};

// The accumulation steps `options` price: its own, else the scenario's.
int accumulation_steps_of(const Scenario& scenario, const CostModelOptions& options);

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual ItemCost cost(std::size_t op_index, const OperatorChoice& choice,
                        std::int64_t micro_batch) const = 0;
  virtual MemoryBreakdown memory(std::size_t op_index, const OperatorChoice& choice,
                                 std::int64_t micro_batch) const = 0;
  virtual double fixed_bytes() const = 0;  // runtime reserve
  using NeighbourBuffers = shardscope::NeighbourBuffers;
  // A class id per operator: operators with equal ids cost the same (cost()) under every choice and batch
  // size. The model owns this key because only it knows which operator fields it reads.
  virtual std::vector<std::size_t> cost_classes() const = 0;
  // Samples processed by the whole cluster in one iteration at this micro-batch.
  virtual double samples_per_iteration(std::int64_t micro_batch) const = 0;
};

// The model the scenario asks for (planner.cost_model), with its calibration, priced as `options` says.
// Throws InputError when the calibration is out of range for the scenario or the paper model lacks
// per-operator coefficients.
std::unique_ptr<CostModel> make_cost_model(const ValidScenario& scenario, const Calibration& calibration,
                                           const CostModelOptions& options = {});

}  // namespace shardscope
