// Scenario: one model on one cluster with one training configuration, as parsed from a scenario file.
#pragma once

#include <string>

#include "planner/core/cluster.hpp"
#include "planner/core/execution_options.hpp"
#include "planner/core/model.hpp"
#include "planner/core/planner_options.hpp"
#include "planner/core/training_config.hpp"

namespace shardscope {

struct Scenario {
  std::string name;
  std::string source_file;  // the YAML file it came from ("<string>" for parse_scenario_string)
  Model model;
  Cluster cluster;
  TrainingConfig training;
  PlannerOptions planner;
  ExecutionOptions execution;
};

}  // namespace shardscope
