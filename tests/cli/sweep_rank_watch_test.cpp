// RankWatch: a rank silent past the point timeout and its grace is reported once, with the points it held;
// one that speaks, or said it is done, is not.
#include "apps/shardscope/sweep_rank_watch.hpp"

#include <gtest/gtest.h>

namespace shardscope::cli {
namespace {

using Clock = RankWatch::Clock;
using std::chrono::milliseconds;

SweepTask task(std::size_t index) {
  SweepTask t;
  t.index = index;
  t.id = "p" + std::to_string(index);
  return t;
}

TEST(RankWatch, ASilentRankIsLostOnceWithThePointsItHeld) {
  const Clock::time_point start{};
  RankWatch watch(4, 1, start);  // ranks 1..3, limit 1 s + 10 s grace
  EXPECT_EQ(watch.limit_seconds(), 11);
  watch.handed(1, task(0));
  watch.handed(1, task(5));
  watch.returned(1, 0);
  watch.handed(2, task(1));
  watch.done(3);
  EXPECT_FALSE(watch.all_done());
  const Clock::time_point later = start + milliseconds(11'000);
  EXPECT_TRUE(watch.newly_lost(later).empty());  // at the limit, not past it
  watch.heard(2, later);
  const auto lost = watch.newly_lost(later + milliseconds(1));
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].first, 1);
  ASSERT_EQ(lost[0].second.size(), 1u);
  EXPECT_EQ(lost[0].second[0].index, 5u);
  EXPECT_TRUE(watch.newly_lost(later + milliseconds(2)).empty());  // reported once
  EXPECT_EQ(watch.lost(), std::vector<int>{1});
  const auto then = watch.newly_lost(later + milliseconds(11'001));  // rank 2 silent since `later`
  ASSERT_EQ(then.size(), 1u);
  EXPECT_EQ(then[0].first, 2);
  EXPECT_EQ(then[0].second.size(), 1u);
  EXPECT_TRUE(watch.all_done());  // 1 and 2 given up, 3 done
}

TEST(RankWatch, TheErrorSaysWhoAndHowToRunThePointAgain) {
  const std::string e = lost_rank_error(3, 3610);
  EXPECT_NE(e.find("rank 3 held this point and stopped responding"), std::string::npos) << e;
  EXPECT_NE(e.find("--resume --retry-errors"), std::string::npos) << e;
}

}  // namespace
}  // namespace shardscope::cli
