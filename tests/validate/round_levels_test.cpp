// Round-normalized medians: a machine changing pace between rounds moves no plan's estimate, one plan is its
// plain median, and malformed rounds are refused.
#include "validate/core/round_levels.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "validate/core/median.hpp"

namespace shardscope::validate {
namespace {

// Three plans 0 %, 2 % and 5 % apart, measured over 9 rounds whose pace changes (a slow spell in rounds 5-8).
TEST(RoundLevels, APaceChangeBetweenRoundsMovesNoPlan) {
  const std::vector<double> base = {0.050, 0.051, 0.0525};
  const std::vector<double> pace = {1.0, 1.01, 0.99, 1.0, 1.0, 1.3, 1.32, 1.29, 1.31};
  std::vector<std::vector<double>> seconds(base.size());
  for (std::size_t p = 0; p < base.size(); ++p)
    for (std::size_t r = 0; r < pace.size(); ++r) seconds[p].push_back(base[p] * pace[r]);
  const std::vector<double> est = round_normalized_medians(seconds);
  ASSERT_EQ(est.size(), 3u);
  EXPECT_NEAR(est[1] / est[0], 1.02, 1e-12);
  EXPECT_NEAR(est[2] / est[0], 1.05, 1e-12);
  // Plain medians keep the ratios here too, but not once slow moments fall unevenly on the plans: plan 0
  // alone is slowed in rounds 0 and 1 (a descheduling during its turns), which tips its plain median into
  // the slow spell's values.
  std::vector<std::vector<double>> uneven = seconds;
  uneven[0] = {base[0] * 1.3, base[0] * 1.3,  base[0] * 0.99, base[0],       base[0],
               base[0] * 1.3, base[0] * 1.32, base[0] * 1.29, base[0] * 1.31};
  EXPECT_GT(median(uneven[0]) / median(uneven[1]), 1.1);  // the plain median puts plan 0 last
  const std::vector<double> fair = round_normalized_medians(uneven);
  EXPECT_LT(fair[0], fair[1]);  // the rounds' levels put it first again
}

TEST(RoundLevels, OnePlanIsItsMedian) {
  const std::vector<double> one = {0.3, 0.1, 0.2, 0.5};
  EXPECT_DOUBLE_EQ(round_normalized_medians({one})[0], median(one));
  EXPECT_TRUE(round_normalized_medians({}).empty());
}

TEST(RoundLevels, MalformedRoundsAreRefused) {
  EXPECT_THROW(round_normalized_medians({{0.1, 0.2}, {0.1}}), std::invalid_argument);
  EXPECT_THROW(round_normalized_medians({{0.1, 0.0}, {0.1, 0.2}}), std::invalid_argument);
  EXPECT_THROW(round_normalized_medians({{0.1, NAN}, {0.1, 0.2}}), std::invalid_argument);
}

}  // namespace
}  // namespace shardscope::validate
