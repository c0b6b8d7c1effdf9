// Checks that run on every shipped scenario: the solver's instance equals the cost model, and the
// recommended plan is never slower than a baseline (planning all of them is slow under ASan: own timeout).
#include <gtest/gtest.h>

#include <filesystem>

#include "planner/cost/cost_model.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// Calls check(path, scenario, calibration) for every shipped scenario (scenarios/ and the validation
// harness's validate/scenarios/); returns how many there were.
template <typename Check>
int for_each_shipped_scenario(Check check) {
  const std::filesystem::path source(SHARDSCOPE_SOURCE_DIR);
  int count = 0;
  for (const std::filesystem::path& dir : {source / "scenarios", source / "validate" / "scenarios"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml" ||
          entry.path().stem().string().find("cluster") != std::string::npos)
        continue;
      const Scenario s = load_scenario_file(entry.path().string());
      check(entry.path(), s, scenario_calibration(s));
      ++count;
    }
  }
  return count;
}

// The instance the solver sees equals the cost model, operator by operator, on every shipped scenario.
TEST(CostClasses, SolverItemsEqualTheCostModelOnEveryShippedScenario) {
  const int checked = for_each_shipped_scenario(
      [](const std::filesystem::path& path, const Scenario& s, const Calibration& calibration) {
        const auto model = make_cost_model(ValidScenario(s), calibration);
        const PlanInstance inst = build_instance(ValidScenario(s), calibration, full_space(s.training), 2);
        ASSERT_EQ(inst.choices.size(), s.model.operators.size());
        for (std::size_t i = 0; i < inst.choices.size(); ++i) {
          for (std::size_t k = 0; k < inst.choices[i].size(); ++k) {
            const ItemCost c = model->cost(i, inst.choices[i][k], 2);
            ASSERT_EQ(inst.problem.classes[i][k].seconds, c.seconds) << path << " op " << i;
            ASSERT_EQ(inst.problem.classes[i][k].resident_bytes, c.resident_bytes) << path << " op " << i;
            ASSERT_EQ(inst.problem.classes[i][k].transient_bytes, c.transient_bytes) << path << " op " << i;
          }
        }
      });
  EXPECT_GE(checked, 9);
}

// Every shipped scenario can be planned (exit 0), except one named to show that nothing fits (exit 3). The
// full space holds every baseline, so the recommended plan is never slower than one that fits (at the
// default batch policy, own; batch_policy_test checks equal); where nothing fits, no baseline fits either.
TEST(Recommendation, EveryShippedScenarioFitsAndIsNeverSlowerThanABaseline) {
  const int checked = for_each_shipped_scenario(
      [](const std::filesystem::path& path, const Scenario& s, const Calibration& calibration) {
        const bool meant_not_to_fit = path.stem().string().find("nothing-fits") != std::string::npos;
        const PlanReport report = plan_scenario(ValidScenario(s), calibration);
        EXPECT_EQ(report.best.fits, !meant_not_to_fit) << path;
        for (const StrategyResult& b : report.baselines) {
          if (!b.fits) continue;
          ASSERT_TRUE(report.best.fits) << path << ": " << b.strategy << " fits";
          EXPECT_GE(report.best.plan.predicted.samples_per_second, b.plan.predicted.samples_per_second)
              << path << ": " << b.strategy;
        }
        if (report.best.fits) {
          // What the plan reports is what evaluating it again gives.
          EXPECT_DOUBLE_EQ(report.best.plan.predicted.iteration_seconds,
                           evaluate_plan(ValidScenario(s), calibration, report.best.plan).iteration_seconds)
              << path;
        }
      });
  EXPECT_GE(checked, 9);
}

}  // namespace
}  // namespace shardscope
