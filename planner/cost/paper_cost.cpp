// The OSDP paper's cost model (section 3.1) and its per-slice generalisation; also the CostModel factory.
#include "planner/cost/paper_cost.hpp"

#include "planner/core/error.hpp"
#include "planner/cost/topology_cost.hpp"

namespace shardscope {

PaperCostModel::PaperCostModel(const ValidScenario& valid)
    : operators_(valid.operators()),
      gpus_(valid.cluster.gpus()),
      paper_(valid.planner.paper),
      reserve_bytes_(static_cast<double>(valid.training.runtime_reserve_bytes)) {
  const Scenario& scenario = valid;
  for (std::size_t i = 0; i < scenario.model.operators.size(); ++i) {
    if (!scenario.model.operators[i].paper.given) {
      throw InputError(scenario.source_file, 0, "model.operators[" + std::to_string(i) + "].paper",
                       "cost_model: paper needs gamma, parameter_bytes and model_bytes for operator '" +
                           scenario.model.operators[i].name + "'");
    }
  }
}

ItemCost PaperCostModel::cost(std::size_t op_index, const OperatorChoice& c, std::int64_t b) const {
  const PaperOperatorCosts& p = (*operators_)[op_index].paper;
  const double n = gpus_;
  const double alpha = paper_.alpha_seconds;
  const double beta = paper_.beta_seconds_per_byte;
  const double g = c.slices, k = c.sharded_slices;
  // Each slice: DP needs 2 collectives (all-reduce = reduce-scatter + all-gather), ZDP needs 3.
  const double per_slice_step = alpha + (p.parameter_bytes / g) * beta / n;
  ItemCost out;
  out.seconds =
      (2 * (g - k) + 3 * k) * (n - 1) * per_slice_step + static_cast<double>(b) * p.gamma_seconds_per_sample;
  out.resident_bytes = memory(op_index, c, b).resident();
  out.transient_bytes = 0;
  return out;
}

MemoryBreakdown PaperCostModel::memory(std::size_t op_index, const OperatorChoice& c, std::int64_t b) const {
  const PaperOperatorCosts& p = (*operators_)[op_index].paper;
  const double n = gpus_;
  const double g = c.slices, k = c.sharded_slices;
  // The paper gives one figure for all model states (M_model): it is reported as parameter_bytes.
  // M_extra is resident in its accounting and is reported with the activations.
  MemoryBreakdown m;
  m.parameter_bytes = p.model_bytes * ((g - k) + k / n) / g;
  m.activation_bytes = static_cast<double>(b) * p.activation_bytes_per_sample + p.extra_bytes;
  return m;
}

std::vector<std::size_t> PaperCostModel::cost_classes() const {
  std::vector<std::size_t> out((*operators_).size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

}  // namespace shardscope
