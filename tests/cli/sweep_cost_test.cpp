// A sweep knows what its points cost before it runs them (apps/shardscope/sweep_cost.hpp): the dry run prints
// each point's planner choices and simulator activities and the total, the estimate of a whole-model
// strategy's simulation is what the simulator starts, and --jobs hands out the most expensive points first.
#include "apps/shardscope/sweep_cost.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/shardscope/sweep_plan.hpp"
#include "planner/io/scenario_parser.hpp"
#include "run_command.hpp"
#include "sweep_files.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

// The dry run's cost columns grow with the cluster (PaRO's grid: 1 to 16 nodes) and add up to the total.
TEST(SweepCost, TheDryRunPrintsEachPointsCostAndTheTotal) {
  const auto r = test::run_command(kBinary + " sweep " + kSource +
                                   "/scenarios/sweeps/paro-llama-7b.yaml --dry-run --simulate");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const cli::SweepPoints points =
      cli::prepare_sweep(kSource + "/scenarios/sweeps/paro-llama-7b.yaml", {}, cli::CostEstimate::simulated);
  std::int64_t activities = 0, choices = 0, previous = 0;
  for (const cli::SweepTask& t : points.tasks) {
    ASSERT_TRUE(t.cost.known);
    EXPECT_GT(t.cost.simulator_activities, previous) << "point " << t.index;  // more nodes, more flows
    previous = t.cost.simulator_activities;
    activities += t.cost.simulator_activities;
    choices += t.cost.planner_choices;
    EXPECT_NE(r.out.find(std::to_string(t.cost.simulator_activities)), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("the planner prices at most " + std::to_string(choices) + " operator choices"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("the simulator starts about " + std::to_string(activities) + " activities"),
            std::string::npos)
      << r.out;
  // Without --simulate there is no simulator column.
  const auto planned =
      test::run_command(kBinary + " sweep " + kSource + "/scenarios/sweeps/paro-llama-7b.yaml --dry-run");
  EXPECT_EQ(planned.out.find("simulator activities"), std::string::npos) << planned.out;
}

#ifdef SHARDSCOPE_HAVE_SIM
// For a whole-model strategy at a fixed micro-batch the estimate is the simulated iteration's own count.
TEST(SweepCost, AWholeModelStrategysEstimateIsWhatTheSimulatorStarts) {
  const std::string scenario = kSource + "/scenarios/paro-llama-7b-32gpu.yaml";
  for (const char* strategy : {"fsdp", "zero-2", "paro-IGG"}) {
    Scenario s = load_scenario_file(scenario);
    s.training.micro_batch = 1;
    const cli::PointCost cost = cli::estimate_point_cost(s, {strategy}, true);
    ASSERT_TRUE(cost.known);
    const auto r = test::run_command(kBinary + " simulate " + scenario + " --strategy " + strategy +
                                     " --set training.micro_batch=1 --json --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(cost.simulator_activities, nlohmann::json::parse(r.out)["activities"].get<std::int64_t>())
        << strategy;
  }
}
#else
// Without the simulator a sweep cannot simulate, but its dry run still estimates what simulating would cost.
TEST(SweepCost, WithoutTheSimulatorOnlyTheDryRunTakesSimulate) {
  const std::string grid = kSource + "/scenarios/sweeps/example.yaml";
  const auto run = test::run_command(kBinary + " sweep " + grid + " --simulate --out " +
                                     test::temp_path("no-sim.jsonl") + " --quiet");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--simulate: needs the simulator"), std::string::npos) << run.err;
  const auto dry = test::run_command(kBinary + " sweep " + grid + " --dry-run --simulate");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("simulator activities"), std::string::npos) << dry.out;
}
#endif

// A scenario that does not validate has an unknown cost, ordered after every known one; known costs go
// largest first, ties in grid order.
TEST(SweepCost, UnknownCostsGoLastAndTiesKeepGridOrder) {
  Scenario bad = load_scenario_file(kSource + "/scenarios/default.yaml");
  bad.training.group_size = 3;  // does not divide 8 GPUs
  EXPECT_FALSE(cli::estimate_point_cost(bad, {}, true).known);
  std::vector<cli::SweepTask> tasks(4);
  const std::int64_t choices[] = {5, 9, 0, 9};
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].index = i;
    tasks[i].cost.known = i != 2;
    tasks[i].cost.planner_choices = choices[i];
  }
  cli::order_by_cost(tasks, false);
  std::vector<std::size_t> order;
  for (const cli::SweepTask& t : tasks) order.push_back(t.index);
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 3, 0, 2}));
}

// --jobs 1 runs the points most expensive first: the larger model's points before the smaller's.
TEST(SweepCost, PointsRunMostExpensiveFirst) {
  const std::string out = test::temp_path("cost-order.jsonl");
  const auto r = test::run_command(kBinary + " sweep " + kSource + "/scenarios/sweeps/example.yaml --out " +
                                   out + " --jobs 1 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> models;
  for (const auto& row : test::rows_of(out)) models.push_back(row["axes"]["model"].get<std::string>());
  EXPECT_EQ(models, (std::vector<std::string>{"nd-64x1536", "nd-64x1536", "nd-48x1536", "nd-48x1536"}));
}

}  // namespace
}  // namespace shardscope
