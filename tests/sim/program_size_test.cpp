// ProgramSize (planner/program/program_size.hpp) counts, before any simulator runs, exactly the activities
// the iteration simulator starts: on every shipped scenario (past 32 GPUs on 4 nodes), for its recommended
// plan, FSDP and PaRO-IGG, under NCCL's flows and under rings.
#include "planner/program/program_size.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <sstream>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "shipped_scenarios.hpp"
#include "sim/runner.hpp"

namespace shardscope::sim {
namespace {

struct Case {
  std::string scenario;  // file name under scenarios/
  std::string strategy;
  CollectivesChoice collectives;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.scenario << " " << c.strategy << " " << to_string(c.collectives);
}

class ProgramSizeAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(ProgramSizeAgreement, CountsWhatTheSimulatorStarts) {
  const Case& c = GetParam();
  if (c.scenario == "paro-llama-65b-128gpu.yaml" && c.strategy == "shardscope" &&
      c.collectives == CollectivesChoice::ring) {
    // Its plan's step-model rings take 17 s on 4 nodes (over ASan's 120 s); the other cases count rings.
    GTEST_SKIP() << "LLaMA-65B's own plan on rings: too slow for every build";
  }
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("shardscope_program_size_" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  std::ofstream(file) << test::small_scenario(c.scenario);
  Scenario s = load_scenario_file(file);
  s.execution.collectives = c.collectives;
  const ValidScenario valid(s);
  const StrategyResult planned = plan_strategy(valid, Calibration{}, space_by_name(c.strategy, s.training));
  if (!planned.fits) GTEST_SKIP() << c.strategy << " does not fit " << c.scenario;
  const IterationOptions options;
  const IterationProgram program =
      build_iteration_program(valid, Calibration{}, planned.plan,
                              ProgramOptions{options.prefetch_depth, false, options.bucket_bytes});
  if (program.micro_steps > 64) GTEST_SKIP() << "the steady state would skip micro-steps";
  const CollectiveCost cost(s.cluster, s.training.group_size, Calibration{},
                            plan_collectives(s.execution, planned.plan));
  const ProgramSize size(program, cost, s.cluster.gpus(), options.coarse_above);

  SimulationJob job;
  job.scenario_file = file;
  job.plan = planned.plan;
  job.options = options;
  job.timeout_seconds = 300;
  // The scenario files leave execution.collectives at auto: the child runs the plan's own.
  const IterationResult simulated = ChildProcessRunner(SHARDSCOPE_BINARY).run(job);
  std::filesystem::remove(file);
  EXPECT_EQ(size.activities(program.micro_steps), simulated.activities);
  EXPECT_GT(size.step_messages(), 0);
}

std::vector<Case> every_shipped_scenario() {
  std::vector<Case> out;
  for (const std::string& f : test::shipped_scenario_files()) {
    for (const char* strategy : {"shardscope", "fsdp", "paro-IGG"}) {
      for (const CollectivesChoice collectives : {CollectivesChoice::nccl, CollectivesChoice::ring})
        out.push_back({f, strategy, collectives});
    }
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.scenario.substr(0, info.param.scenario.size() - 5) + "_" +
                     info.param.strategy + "_" + std::string(to_string(info.param.collectives));
  return test::test_name(name);
}

INSTANTIATE_TEST_SUITE_P(ShippedScenarios, ProgramSizeAgreement,
                         ::testing::ValuesIn(every_shipped_scenario()), case_name);

}  // namespace
}  // namespace shardscope::sim
