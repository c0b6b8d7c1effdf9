// PaperCostModel: the OSDP paper's alpha-beta-gamma model, exactly, with its operator-splitting extension.
#pragma once

#include <memory>
#include <vector>

#include "planner/cost/cost_model.hpp"

namespace shardscope {

// DP:  T_i = 2(N-1)(alpha + S_i beta / N) + b gamma_i,  M_i = M_model + b M_act + M_extra
// ZDP: T_i = 3(N-1)(alpha + S_i beta / N) + b gamma_i,  M_i = M_model / N + b M_act + M_extra
// A split operator (g slices, k sharded) pays each slice's collectives on S_i / g bytes and keeps
// ((g - k) + k / N) / g of M_model. No transient term: the paper folds it into M_extra.
class PaperCostModel : public CostModel {
 public:
  explicit PaperCostModel(const ValidScenario& scenario);
  ItemCost cost(std::size_t op_index, const OperatorChoice& choice, std::int64_t micro_batch) const override;
  MemoryBreakdown memory(std::size_t op_index, const OperatorChoice& choice,
                         std::int64_t micro_batch) const override;
  double fixed_bytes() const override { return reserve_bytes_; }
  // Each operator is its own class: the paper model reads hand-given per-operator coefficients.
  std::vector<std::size_t> cost_classes() const override;
  // The paper's objective is seconds per sample on one worker, (1/b) sum T_i; what the planner reports is the
  // cluster's, as under the topology model: the N workers each process b samples in the priced micro-step.
  double samples_per_iteration(std::int64_t micro_batch) const override {
    return static_cast<double>(micro_batch) * gpus_;
  }

 private:
  std::shared_ptr<const std::vector<Operator>> operators_;
  int gpus_;
  PaperCoefficients paper_;
  double reserve_bytes_;
};

}  // namespace shardscope
