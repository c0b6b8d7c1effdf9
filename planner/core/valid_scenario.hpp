// ValidScenario: a Scenario checked once at the boundary; every planner and simulator entry point takes one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "planner/core/scenario.hpp"

namespace shardscope {

// Made only by checking a Scenario (scenario_check.hpp: every invariant the planner, the program builder, the
// cost models and the simulator rely on), so nothing below the boundary checks again. Read-only, with the
// Scenario's field names, and cheap to copy: copies share one scenario, and a part handed out (operators())
// keeps it alive.
class ValidScenario {
  std::shared_ptr<const Scenario> scenario_;  // first: the references below point into it

 public:
  // Throws InputError(source_file, 0, field, message) for the scenario's first problem. Defaults are not
  // resolved here: the parsers resolve them (resolve_defaults), code that builds a scenario does it itself.
  explicit ValidScenario(Scenario scenario);
  ValidScenario(const ValidScenario&) = default;
  ValidScenario& operator=(const ValidScenario&) = delete;

  const std::string& name;
  const std::string& source_file;
  const Model& model;
  const Cluster& cluster;
  const TrainingConfig& training;
  const PlannerOptions& planner;
  const ExecutionOptions& execution;

  const Scenario& scenario() const { return *scenario_; }
  operator const Scenario&() const { return *scenario_; }  // reading it needs no second check

  // The model's operators, shared with this scenario (a cost model keeps them without a dangling reference).
  std::shared_ptr<const std::vector<Operator>> operators() const;
};

}  // namespace shardscope
