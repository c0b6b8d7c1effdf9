// Calibration values are checked against their scenario like the scenario's own (finding 6), and a model with
// no work is an input error, never "inf samples/s" (finding 5).
#include <gtest/gtest.h>

#include <cmath>

#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// 8 TITAN RTX under a 8 GiB limit.
Scenario small_scenario() {
  return parse_scenario_string(
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 8GiB, max_micro_batch: 2}\n",
      "s.yaml");
}

TEST(SameValidation, ACalibrationReserveAtTheLimitIsAnErrorAtItsLine) {
  const Scenario s = small_scenario();
  try {
    parse_calibration_string("slice_overhead: 10us\nruntime_reserve: 9GiB\n", "cal.yaml", s);
    FAIL() << "a 9 GiB reserve under an 8 GiB limit was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "cal.yaml");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "runtime_reserve");
    // The very message training.runtime_reserve gets.
    EXPECT_EQ(e.message(), "the runtime reserve must be below the memory limit (8589934592 bytes)");
  }
  EXPECT_NO_THROW(parse_calibration_string("runtime_reserve: 1GiB\n", "cal.yaml", s));
}

TEST(SameValidation, TheScenarioReserveGetsTheSameMessage) {
  try {
    parse_scenario_string(
        "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
        "training: {memory_limit: 8GiB, runtime_reserve: 9GiB}\n",
        "s.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(), "the runtime reserve must be below the memory limit (8589934592 bytes)");
  }
}

TEST(SameValidation, APlannerGivenABadCalibrationInCodeSaysSoInsteadOfNothingFits) {
  const Scenario s = small_scenario();
  Calibration cal;
  cal.source_file = "mine.yaml";
  cal.runtime_reserve_bytes = 9.0 * (1 << 30);
  try {
    (void)plan_scenario(ValidScenario(s), cal, PlanRequest{.with_baselines = false});
    FAIL() << "planned with a reserve above the limit";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "mine.yaml");
    EXPECT_EQ(e.field(), "runtime_reserve");
  }
  Calibration negative_link;
  negative_link.links[static_cast<std::size_t>(LinkClass::same_switch)] = LinkCalibration{-1e-6, 1e9};
  EXPECT_THROW((void)plan_scenario(ValidScenario(s), negative_link, PlanRequest{.with_baselines = false}),
               InputError);
  ASSERT_FALSE(calibration_issues(negative_link, s).empty());
  EXPECT_EQ(calibration_issues(negative_link, s).front().field, "links.pcie-same-switch.alpha");
}

TEST(SameValidation, AMissingCalibrationFileIsAnInputError) {
  Scenario s = small_scenario();
  s.planner.calibration_file = "/nonexistent/calibration.yaml";
  EXPECT_THROW((void)scenario_calibration(s), InputError);
}

TEST(NoWork, AModelWithoutFlopsOrTrainableParametersIsAnInputError) {
  const std::string cluster = "cluster: {preset: titan-rtx-8-pcie3}\n";
  for (const char* ops : {"    - {name: nothing, parameters: 0}\n",
                          "    - {name: frozen, parameters: 1000, trainable: false}\n"}) {
    try {
      parse_scenario_string(std::string("model:\n  operators:\n") + ops + cluster, "z.yaml");
      FAIL() << ops;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "model.operators");
      EXPECT_EQ(e.line(), 3);
      EXPECT_NE(e.message().find("the model has no work"), std::string::npos) << e.what();
    }
  }
  // Either kind of work is enough, and every figure is then finite.
  for (const char* ops : {"    - {name: weights, parameters: 1000}\n",
                          "    - {name: compute, parameters: 0, forward_flops_per_sample: 1e9}\n"}) {
    const Scenario s = parse_scenario_string(
        std::string("model:\n  operators:\n") + ops + cluster + "training: {max_micro_batch: 2}\n", "w.yaml");
    const PlanReport r = plan_scenario(ValidScenario(s), Calibration{}, PlanRequest{.with_baselines = false});
    ASSERT_TRUE(r.best.fits) << ops;
    EXPECT_TRUE(std::isfinite(r.best.plan.predicted.samples_per_second)) << ops;
    EXPECT_GT(r.best.plan.predicted.iteration_seconds, 0) << ops;
  }
}

}  // namespace
}  // namespace shardscope
