// Solver agreement: exact DP (within its certified gap), the OSDP DFS and brute force on 200+ random
// instances.
#include <gtest/gtest.h>

#include <random>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope {
namespace {

McProblem random_instance(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> classes(1, 12), items(1, 4);
  std::uniform_real_distribution<double> seconds(0.01, 1.0), resident(1e6, 1e9), transient(0, 3e8);
  McProblem p;
  const int n = classes(rng);
  double heaviest = 0;
  for (int c = 0; c < n; ++c) {
    std::vector<McItem> list;
    const int k = n > 9 ? std::min(items(rng), 3) : items(rng);
    double max_resident = 0;
    for (int j = 0; j < k; ++j) {
      list.push_back({seconds(rng), resident(rng), transient(rng)});
      max_resident = std::max(max_resident, list.back().resident_bytes);
    }
    heaviest += max_resident;
    p.classes.push_back(list);
  }
  std::uniform_real_distribution<double> fraction(0.3, 1.1);
  p.capacity_bytes = heaviest * fraction(rng);
  return p;
}

TEST(Solvers, DpDfsAndBruteForceAgreeOnRandomInstances) {
  std::mt19937_64 rng(20261122);
  int feasible = 0;
  for (int trial = 0; trial < 250; ++trial) {
    const McProblem p = random_instance(rng);
    const McSolution brute = solve_brute_force(p);
    const McSolution dfs = solve_dfs(p);
    const McSolution dp = solve_dp(p);
    ASSERT_TRUE(dfs.complete);
    ASSERT_EQ(brute.feasible, dfs.feasible) << "trial " << trial;
    // Memory rounding never hides a plan that fits in exact bytes, nor invents one.
    ASSERT_EQ(brute.feasible, dp.feasible) << "trial " << trial;
    if (!brute.feasible) continue;
    ++feasible;
    EXPECT_DOUBLE_EQ(dfs.seconds, brute.seconds) << "trial " << trial;
    // The DP's plan is feasible in exact bytes and the optimum lies inside its certified bounds.
    if (dp.feasible) {
      EXPECT_LE(dp.peak_bytes, p.capacity_bytes) << "trial " << trial;
      EXPECT_GE(dp.seconds, brute.seconds - 1e-12) << "trial " << trial;
    }
    EXPECT_LE(dp.lower_bound_seconds, brute.seconds + 1e-12) << "trial " << trial;
    if (dp.feasible) {
      EXPECT_LE(dp.seconds - brute.seconds, dp.seconds - dp.lower_bound_seconds + 1e-12);
    }
  }
  EXPECT_GE(feasible, 150);
}

TEST(Solvers, LpBoundIsBelowTheIntegerOptimum) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const McProblem p = random_instance(rng);
    const McSolution brute = solve_brute_force(p);
    if (!brute.feasible) continue;
    double best = 1e300;
    for (const auto& items : p.classes) {
      for (const McItem& it : items)
        best = std::min(best, lp_lower_bound(p, it.transient_bytes, p.capacity_bytes - it.transient_bytes));
    }
    EXPECT_LE(best, brute.seconds + 1e-12);
  }
}

TEST(Solvers, DominatedItemsAreRemoved) {
  McProblem p;
  p.classes = {{{1.0, 10, 0}, {2.0, 20, 0}, {0.5, 30, 0}, {0.5, 30, 5}}};
  const auto kept = remove_dominated(p);
  ASSERT_EQ(kept[0].size(),
            2u);  // (2.0, 20) is slower and heavier than (1.0, 10); (0.5, 30, 5) loses to (0.5, 30, 0)
  EXPECT_EQ(kept[0][0], 2);
  EXPECT_EQ(kept[0][1], 0);
}

TEST(Solvers, DfsReportsWhenItHitsItsLimit) {
  std::mt19937_64 rng(3);
  McProblem p;
  for (int c = 0; c < 30; ++c) p.classes.push_back({{1.0, 10, 0}, {0.9, 11, 0}, {0.8, 12, 0}});
  p.capacity_bytes = 330;
  const McSolution dfs = solve_dfs(p, 1000);
  EXPECT_FALSE(dfs.complete);
  EXPECT_GE(dfs.explored, 1000);
}

TEST(Solvers, ParetoFrontIsMonotone) {
  McProblem p;
  p.classes = {{{3.0, 100, 0}, {2.0, 200, 10}, {1.0, 400, 20}}, {{2.0, 50, 0}, {1.0, 150, 0}}};
  p.capacity_bytes = 1000;
  const auto front = pareto_front(p);
  ASSERT_GE(front.size(), 3u);
  for (std::size_t i = 1; i < front.size(); ++i) {
    EXPECT_GT(front[i].peak_bytes, front[i - 1].peak_bytes);
    EXPECT_LT(front[i].seconds, front[i - 1].seconds);
  }
  EXPECT_DOUBLE_EQ(front.back().seconds, 2.0);
}

}  // namespace
}  // namespace shardscope
