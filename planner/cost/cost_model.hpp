// CostModel: time and memory of one operator under one choice (scopes, slices, checkpointing) at batch b.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
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

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual ItemCost cost(std::size_t op_index, const OperatorChoice& choice,
                        std::int64_t micro_batch) const = 0;
  virtual MemoryBreakdown memory(std::size_t op_index, const OperatorChoice& choice,
                                 std::int64_t micro_batch) const = 0;
  virtual double fixed_bytes() const = 0;  // runtime reserve
  // How an operator's transient counts the buffers its neighbours hold meanwhile (prefetched parameters,
  // gradients still being reduced): as if they made the same choice (`alike`, the search's estimate, which a
  // whole plan's peak then verifies), or the largest any choice of the space gives them (`any_choice`, a
  // bound whatever they choose; `parameters_sharded` / `gradients_sharded` say whether the space has such
  // buffers at all). The topology model starts `alike`; the paper model has no transient term.
  enum class NeighbourBuffers { alike, any_choice };
  virtual void set_neighbour_buffers(NeighbourBuffers mode, bool parameters_sharded, bool gradients_sharded) {
    (void)mode;
    (void)parameters_sharded;
    (void)gradients_sharded;
  }
  // A class id per operator: operators with equal ids cost the same (cost()) under every choice and batch
  // size. The model owns this key because only it knows which operator fields it reads.
  virtual std::vector<std::size_t> cost_classes() const = 0;
  // Samples processed by the whole cluster in one iteration at this micro-batch.
  virtual double samples_per_iteration(std::int64_t micro_batch) const = 0;
};

// The model the scenario asks for (planner.cost_model), with its calibration. Throws InputError when the
// paper model lacks per-operator coefficients.
std::unique_ptr<CostModel> make_cost_model(const Scenario& scenario, const Calibration& calibration);
// The same model pricing iterations of `accumulation_steps` micro-steps instead of the scenario's own count
// (the planner prices every batch size of one scenario without copying it), its collectives by `collectives`
// (the topology model; the paper model has its own alpha-beta).
std::unique_ptr<CostModel> make_cost_model(const Scenario& scenario, const Calibration& calibration,
                                           int accumulation_steps,
                                           CollectiveModel collectives = CollectiveModel::ring);

}  // namespace shardscope
