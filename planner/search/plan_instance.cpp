// The knapsack instance of one search space at one training step: priced, deduplicated choices per operator.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

// The choices of `space` operator `index` may take under the space's pins (throws when none is left).
std::vector<OperatorChoice> pinned_choices(const Scenario& scenario, const SearchSpace& space,
                                           std::size_t index, std::vector<OperatorChoice> choices) {
  const Operator& op = scenario.model.operators[index];
  std::erase_if(choices, [&](const OperatorChoice& c) {
    return std::any_of(space.pins.begin(), space.pins.end(),
                       [&](const OperatorPin& pin) { return pin.operator_index == index && !pin.admits(c); });
  });
  if (!choices.empty()) return choices;
  std::string what;
  for (const OperatorPin& pin : space.pins) {
    if (pin.operator_index == index) what += (what.empty() ? "" : "; ") + pin.describe(op.name);
  }
  throw InputError(scenario.source_file, 0, "pins",
                   "no choice of the " + space.name + " space meets the pin " + what);
}

}  // namespace

PlanInstance build_instance(const ValidScenario& scenario, const Calibration& calibration,
                            const SearchSpace& space, std::int64_t micro_batch) {
  return build_instance(scenario, calibration, space,
                        TrainingStep{micro_batch, scenario.training.gradient_accumulation_steps});
}

PlanInstance build_instance(const ValidScenario& scenario, const Calibration& calibration,
                            const SearchSpace& space, TrainingStep step, NeighbourBuffers neighbours) {
  // What the space lets neighbours gather bounds each transient under any_choice (DDP gathers nothing).
  const auto any_scope = [&](auto sharded) {
    return std::any_of(space.scopes.begin(), space.scopes.end(), sharded);
  };
  CostModelOptions options;
  options.accumulation_steps = step.accumulation_steps;
  options.collectives = scenario_collectives(scenario);
  options.neighbours = neighbours;
  options.parameters_sharded = any_scope([](const Scopes& s) { return s.parameters != ShardScope::N; });
  options.gradients_sharded = any_scope([](const Scopes& s) { return s.gradients != ShardScope::N; });
  const std::unique_ptr<CostModel> model = make_cost_model(scenario, calibration, options);
  PlanInstance inst;
  inst.fixed_bytes = model->fixed_bytes();
  inst.samples_per_iteration = model->samples_per_iteration(step.micro_batch);
  inst.problem.capacity_bytes = static_cast<double>(scenario.training.memory_limit_bytes) - inst.fixed_bytes;
  // Operators of one cost class (the model's key) that enumerate the same choices (splittable or not, the
  // checkpointing a per-operator policy gives them) share their item lists: the first of each shape is
  // priced, later ones copy its class under their own names.
  using Shape = std::tuple<std::size_t, bool, int>;  // cost class, splittable, checkpointing values
  const auto checkpointing = [&space](const Operator& op) {
    if (!decides_per_operator(space.operator_policy)) return 0;
    int values = 0;  // bit 1: not checkpointed, bit 2: checkpointed
    for (bool on : checkpoint_options(space.operator_policy, op, space.checkpoint_every))
      values |= on ? 2 : 1;
    return values;
  };
  const std::vector<std::size_t> cost_class = model->cost_classes();
  std::map<Shape, std::size_t> class_of_shape;  // shape -> index of its first class in inst.problem
  for (std::size_t i = 0; i < scenario.model.operators.size(); ++i) {
    const Operator& op = scenario.model.operators[i];
    // A pinned operator is priced on its own (its choice set differs from its layer twins').
    const bool pinned = std::any_of(space.pins.begin(), space.pins.end(),
                                    [i](const OperatorPin& pin) { return pin.operator_index == i; });
    const Shape shape{cost_class[i], op.splittable, checkpointing(op)};
    if (auto it = class_of_shape.find(shape); !pinned && it != class_of_shape.end()) {
      inst.problem.classes.push_back(inst.problem.classes[it->second]);
      std::vector<OperatorChoice> choices = inst.choices[it->second];
      for (OperatorChoice& c : choices) c.name = op.name;
      inst.choices.push_back(std::move(choices));
      continue;
    }
    std::vector<OperatorChoice> choices = enumerate_choices(space, op);
    if (pinned) choices = pinned_choices(scenario, space, i, std::move(choices));
    McProblem priced;  // this one operator's items, one per choice
    priced.classes.emplace_back();
    for (const OperatorChoice& c : choices) {
      const ItemCost cost = model->cost(i, c, step.micro_batch);
      priced.classes[0].push_back({cost.seconds, cost.resident_bytes, cost.transient_bytes});
    }
    if (!space.uniform) {  // a uniform space needs every choice in every class, dominated or not
      const std::vector<std::vector<int>> undominated = remove_dominated(priced);
      std::vector<OperatorChoice> kept;
      for (int k : undominated[0]) kept.push_back(choices[static_cast<std::size_t>(k)]);
      choices = std::move(kept);
    }
    if (!pinned) class_of_shape.emplace(shape, inst.problem.classes.size());
    inst.problem.classes.push_back(std::move(priced.classes[0]));
    inst.choices.push_back(std::move(choices));
  }
  return inst;
}

}  // namespace shardscope
