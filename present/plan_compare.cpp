// Matching two plans' operators by name and finding what differs.
#include "present/plan_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "planner/core/units.hpp"

namespace shardscope::present {
namespace {

// Costs computed the same way from the same choice agree exactly; this only absorbs rounding noise.
bool differs(double a, double b) { return std::abs(a - b) > 1e-9 * std::max(std::abs(a), std::abs(b)); }

bool same_scopes(const OperatorChoice& a, const OperatorChoice& b) {
  // A choice with nothing sharded is plain DP whatever scopes it carries.
  if (a.sharded_slices == 0 || b.sharded_slices == 0) return a.sharded_slices == b.sharded_slices;
  return a.scopes.name() == b.scopes.name() &&
         a.secondary_parameter_partition == b.secondary_parameter_partition;
}

std::vector<std::string> operator_names(const Scenario& s) {
  std::vector<std::string> names;
  names.reserve(s.model.operators.size());
  for (const Operator& op : s.model.operators) names.push_back(op.name);
  return names;
}

std::string describe_model(const Scenario& s) {
  return s.model.name + " (" + std::to_string(s.model.operators.size()) + " operators)";
}

std::string count_of(std::size_t operators) {
  return std::to_string(operators) + (operators == 1 ? " operator" : " operators");
}

}  // namespace

std::int64_t PlanSnapshot::global_batch() const {
  if (!fits) return 0;
  return plan.micro_batch * plan.gradient_accumulation_steps * scenario.cluster.gpus();
}

std::size_t PlanComparison::choices_changed() const {
  return static_cast<std::size_t>(std::count_if(
      operators.begin(), operators.end(), [](const OperatorDifference& d) { return d.choice_differs(); }));
}

std::string percent_change(double value, double reference) {
  if (reference == 0) return {};
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.2f", std::abs((value / reference - 1) * 100));
  const bool nothing = std::string(digits) == "0.00";
  return (nothing ? "±" : value > reference ? "+" : "−") + std::string(digits) + " %";
}

PinsCost pins_cost(const PlanPrediction& pinned, const PlanPrediction& unpinned) {
  const double dm = pinned.peak_memory_bytes - unpinned.peak_memory_bytes;
  return {percent_change(pinned.samples_per_second, unpinned.samples_per_second),
          (dm > 0   ? "+"
           : dm < 0 ? "−"
                    : "±") +
              units::format_bytes(std::abs(dm)),
          unpinned};
}

std::optional<PlanSnapshot> snapshot_of(const Scenario& scenario, const std::vector<OperatorPin>& pins,
                                        const PlanReport& report, const std::string& label,
                                        const PlanReport* unpinned) {
  const StrategyResult* result = label == "plan" ? &report.best : nullptr;
  for (const StrategyResult& b : report.baselines) {
    if (result == nullptr && b.strategy == label) result = &b;
  }
  if (result == nullptr) return std::nullopt;
  PlanSnapshot s;
  s.label = label;
  s.scenario = scenario;
  if (label == "plan") s.pins = pins;
  if (label == "plan" && !pins.empty() && unpinned != nullptr && unpinned->best.fits)
    s.unpinned = unpinned->best.plan.predicted;
  s.fits = result->fits;
  s.minimum_memory_bytes = result->minimum_memory_bytes;
  s.shortfall_bytes = result->shortfall_bytes;
  if (s.fits) {
    s.plan = result->plan;
    s.operator_costs = result->operator_costs;
  }
  return s;
}

PlanComparison compare_plans(const PlanSnapshot& a, const PlanSnapshot& b) {
  PlanComparison out;
  out.both_fit = a.fits && b.fits;
  const std::vector<std::string> names_a = operator_names(a.scenario);
  const std::vector<std::string> names_b = operator_names(b.scenario);
  // Match by name: the i-th operator of a name in A with the i-th of that name in B.
  std::map<std::string, std::vector<std::size_t>> in_b;
  for (std::size_t i = 0; i < names_b.size(); ++i) in_b[names_b[i]].push_back(i);
  std::vector<std::size_t> match(names_a.size(), names_b.size());
  std::size_t missing = 0;
  for (std::size_t i = 0; i < names_a.size(); ++i) {
    std::vector<std::size_t>& candidates = in_b[names_a[i]];
    if (candidates.empty()) {
      ++missing;
      continue;
    }
    match[i] = candidates.front();
    candidates.erase(candidates.begin());
  }
  if (missing > 0 || names_a.size() != names_b.size()) {
    const std::size_t extra = names_b.size() - (names_a.size() - missing);  // B's operators A has not
    std::string how;
    if (missing > 0) how = "A has " + count_of(missing) + " that B has not";
    if (extra > 0) how += (how.empty() ? "B has " : " and B has ") + count_of(extra) + " that A has not";
    out.models_differ = "The models differ: A is " + describe_model(a.scenario) + ", B is " +
                        describe_model(b.scenario) + "; " + how +
                        ", so operators cannot be compared one by one.";
    return out;
  }
  if (!out.both_fit) return out;
  // Plans and costs are in model order (one per operator): the i-th of each belongs to operator i.
  if (a.plan.operators.size() != names_a.size() || b.plan.operators.size() != names_b.size() ||
      a.operator_costs.size() != names_a.size() || b.operator_costs.size() != names_b.size())
    return out;
  for (std::size_t i = 0; i < names_a.size(); ++i) {
    const std::size_t j = match[i];
    OperatorDifference d;
    d.name = names_a[i];
    d.a = a.plan.operators[i];
    d.b = b.plan.operators[j];
    d.memory_a_bytes = a.operator_costs[i].cost.resident_bytes;
    d.memory_b_bytes = b.operator_costs[j].cost.resident_bytes;
    d.seconds_a = a.operator_costs[i].cost.seconds;
    d.seconds_b = b.operator_costs[j].cost.seconds;
    d.scopes_differ = !same_scopes(d.a, d.b);
    // k changing from 0 (DP) is a change of scopes; between sharded choices it is one of slices.
    d.slices_differ = d.a.slices != d.b.slices || (d.a.sharded_slices != d.b.sharded_slices &&
                                                   d.a.sharded_slices > 0 && d.b.sharded_slices > 0);
    d.checkpoint_differs = d.a.checkpoint != d.b.checkpoint;
    d.memory_differs = differs(d.memory_a_bytes, d.memory_b_bytes);
    d.time_differs = differs(d.seconds_a, d.seconds_b);
    out.operators.push_back(std::move(d));
  }
  return out;
}

}  // namespace shardscope::present
