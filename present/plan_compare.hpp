// Compare A/B: a frozen plan (A) against the shown one (B) — totals side by side and, when both plans are of
// the same model, one row per operator (matched by name) with what differs and the deltas.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/core/scenario.hpp"
#include "planner/search/operator_pin.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::present {

// One side of the comparison: what a plan was made for and what it is (copied, so later re-plans leave it).
struct PlanSnapshot {
  std::string label;  // "plan" or the baseline's name
  Scenario scenario;
  std::vector<OperatorPin> pins;
  bool fits = false;
  Plan plan;                                 // valid when fits
  std::vector<OperatorCost> operator_costs;  // one per operator when fits
  double minimum_memory_bytes = 0;           // when it does not fit: the smallest plan's peak
  double shortfall_bytes = 0;
  // With pins: the plan the same scenario gets without them (the reference of "what the pins cost").
  std::optional<PlanPrediction> unpinned;

  std::int64_t global_batch() const;  // micro-batch x steps x GPUs (0 when it does not fit)
};

// Which parts of an operator's choice and cost differ between A and B.
struct OperatorDifference {
  std::string name;
  OperatorChoice a;
  OperatorChoice b;
  double memory_a_bytes = 0;  // resident memory per GPU (the operator view's column)
  double memory_b_bytes = 0;
  double seconds_a = 0;  // its share of the iteration
  double seconds_b = 0;
  bool scopes_differ = false;  // DP / ZDP / PaRO scope (or hpZ)
  bool slices_differ = false;  // g or k
  bool checkpoint_differs = false;
  bool memory_differs = false;
  bool time_differs = false;

  bool choice_differs() const { return scopes_differ || slices_differ || checkpoint_differs; }
  bool any_difference() const { return choice_differs() || memory_differs || time_differs; }
};

struct PlanComparison {
  bool both_fit = false;
  // Set when A and B are of different models (operator lists differ in length or names): says how, and
  // `operators` stays empty.
  std::string models_differ;
  std::vector<OperatorDifference> operators;  // model order, when both fit and the models match

  std::size_t choices_changed() const;  // operators whose scopes, slices or checkpointing differ
};

// Snapshot of a report's strategy (`label` "plan" is report.best); `unpinned`, when the plan has pins, is the
// report of the same scenario planned without them.
std::optional<PlanSnapshot> snapshot_of(const Scenario& scenario, const std::vector<OperatorPin>& pins,
                                        const PlanReport& report, const std::string& label,
                                        const PlanReport* unpinned = nullptr);

// The change from `reference` to `value` in percent, as every view quotes it: two decimals and a sign,
// "+1.23 %", "−0.04 %" ("±0.00 %" when it rounds to nothing).
std::string percent_change(double value, double reference);

// What pins cost: the pinned plan against the plan made without them, each quoted once for every view.
struct PinsCost {
  std::string throughput;   // percent_change of samples/s: "−0.04 %"
  std::string peak_memory;  // signed bytes: "+12.00 MiB", "−1.00 GiB", "±0 B"
  PlanPrediction unpinned;
};
PinsCost pins_cost(const PlanPrediction& pinned, const PlanPrediction& unpinned);

PlanComparison compare_plans(const PlanSnapshot& a, const PlanSnapshot& b);

}  // namespace shardscope::present
