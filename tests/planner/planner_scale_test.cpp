// The planner at extreme but legal sizes: more operators than memory bins, a limit at the smallest plan.
#include <gtest/gtest.h>

#include <cmath>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// 2 x 9000 + 2 = 18,002 operators of a tiny transformer: about 1.1 GiB per GPU at micro-batch 1.
Scenario tiny_deep_model() {
  return parse_scenario_string(
      "model:\n  name: tiny-9000\n"
      "  transformer: {layers: 9000, hidden: 64, heads: 1, vocab: 1000, sequence_length: 128}\n"
      "cluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {micro_batch: 1}\n");
}

TEST(PlannerScale, EighteenThousandOperatorsThatFitArePlanned) {
  const Scenario s = tiny_deep_model();
  ASSERT_EQ(s.model.operators.size(), 18002u);
  const StrategyResult r = plan_strategy(ValidScenario(s), Calibration{}, full_space(s.training));
  ASSERT_TRUE(r.fits) << "needs " << r.minimum_memory_bytes << " bytes, short " << r.shortfall_bytes;
  EXPECT_EQ(r.plan.operators.size(), 18002u);
  EXPECT_LE(r.plan.predicted.peak_memory_bytes, static_cast<double>(s.training.memory_limit_bytes));
  EXPECT_LE(r.lower_bound_seconds, r.search_seconds);
}

// The smallest memory any plan needs, and the verdict at a limit just at it and one byte below.
void expect_fits_exactly_at_the_minimum(Scenario s, const SearchSpace& space) {
  const double minimum = plan_strategy(ValidScenario(s), Calibration{}, space).minimum_memory_bytes;
  s.training.memory_limit_bytes = static_cast<std::int64_t>(std::ceil(minimum));
  const StrategyResult at = plan_strategy(ValidScenario(s), Calibration{}, space);
  ASSERT_TRUE(at.fits) << space.name << ": the smallest plan needs " << minimum << " bytes, the limit is "
                       << s.training.memory_limit_bytes;
  EXPECT_LE(at.plan.predicted.peak_memory_bytes, static_cast<double>(s.training.memory_limit_bytes));
  s.training.memory_limit_bytes = static_cast<std::int64_t>(std::floor(minimum)) - 1;
  const StrategyResult below = plan_strategy(ValidScenario(s), Calibration{}, space);
  EXPECT_FALSE(below.fits);
  EXPECT_GT(below.shortfall_bytes, 0);  // "needs X (Y over the limit)" never has a negative Y
}

TEST(PlannerScale, ALimitAtTheSmallestPlanFits) {
  // Bin rounding used to push the lightest plans over a limit they meet in exact bytes.
  Scenario s = parse_scenario_string(
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {micro_batch: 1, slice_granularities: [1, 2]}\n");
  expect_fits_exactly_at_the_minimum(s, full_space(s.training));
  expect_fits_exactly_at_the_minimum(s, osdp_space(s.training, true));
  expect_fits_exactly_at_the_minimum(tiny_deep_model(), osdp_space(s.training, false));
}

}  // namespace
}  // namespace shardscope
