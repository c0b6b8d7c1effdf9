// The exact DP at any size: memory rounding never turns a plan that fits in exact bytes into "does not fit",
// more classes than memory bins still solve, and the grouped (block) DP agrees with brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "planner/search/solvers/mckp.hpp"

namespace shardscope {
namespace {

// The smallest peak any plan has: per threshold, the lightest items within it.
double minimum_peak(const McProblem& p) {
  double best = std::numeric_limits<double>::infinity();
  for (double t : transient_thresholds(p)) {
    double resident = 0;
    for (const auto& items : p.classes) {
      double lightest = std::numeric_limits<double>::infinity();
      for (const McItem& it : items) {
        if (it.transient_bytes <= t) lightest = std::min(lightest, it.resident_bytes);
      }
      resident += lightest;
    }
    best = std::min(best, resident + t);
  }
  return best;
}

// `n` classes of a few items, each in `kinds` groups of identical classes (repeated layers).
McProblem repeated_layers(std::mt19937_64& rng, int n, int kinds, double mean_resident) {
  std::uniform_real_distribution<double> seconds(0.01, 1.0), resident(0.2, 1.8), transient(0, 0.3);
  std::uniform_int_distribution<int> items(1, 4);
  std::vector<std::vector<McItem>> kind_items(static_cast<std::size_t>(kinds));
  for (auto& list : kind_items) {
    const int k = items(rng);
    for (int j = 0; j < k; ++j) {
      list.push_back({seconds(rng), resident(rng) * mean_resident, transient(rng) * mean_resident});
    }
  }
  McProblem p;
  for (int c = 0; c < n; ++c) p.classes.push_back(kind_items[static_cast<std::size_t>(c % kinds)]);
  return p;
}

void expect_within_bounds(const McSolution& dp, const McSolution& brute, const McProblem& p, int trial) {
  ASSERT_EQ(dp.feasible, brute.feasible) << "trial " << trial;
  if (!brute.feasible) return;
  EXPECT_LE(dp.peak_bytes, p.capacity_bytes) << "trial " << trial;
  EXPECT_GE(dp.seconds, brute.seconds - 1e-12) << "trial " << trial;
  EXPECT_LE(dp.lower_bound_seconds, brute.seconds + 1e-12) << "trial " << trial;
}

TEST(SolverScale, MoreClassesThanMemoryBinsStillFit) {
  // 18,002 operators of about 66 KB under a 24 GiB limit need about 1.1 GiB: every item is far below one of
  // the 16,384 bins (1.5 MiB), which the DP used to round up to a whole bin each, 18,002 bins > 16,384.
  std::mt19937_64 rng(18002);
  McProblem p = repeated_layers(rng, 18002, 4, 66e3);
  p.classes[0] = {{0.5, 270e3, 0}};  // an embedding and a head of their own
  p.classes[18001] = {{0.4, 1.1e6, 5e4}};
  p.capacity_bytes = 24.0 * (1 << 30);
  const McSolution dp = solve_dp(p);
  ASSERT_TRUE(dp.feasible);
  EXPECT_LE(dp.peak_bytes, p.capacity_bytes);
  EXPECT_LE(dp.lower_bound_seconds, dp.seconds);
  // Memory to spare: every operator takes its fastest item.
  double fastest = 0;
  for (const auto& items : p.classes) {
    double s = std::numeric_limits<double>::infinity();
    for (const McItem& it : items) s = std::min(s, it.seconds);
    fastest += s;
  }
  EXPECT_NEAR(dp.seconds, fastest, 1e-9 * fastest);
}

TEST(SolverScale, ALimitAtTheSmallestPeakAlwaysFits) {
  // At capacity == the smallest peak only the lightest plans fit: rounded up to bins, they used to exceed it.
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = trial % 10 == 9 ? 20000 : trial % 2 == 0 ? 5 : 300;  // singles, blocks, more than bins
    McProblem p = repeated_layers(rng, n, 1 + trial % 5, 1e6 + 1e4 * trial);
    p.capacity_bytes = minimum_peak(p);
    const McSolution dp = solve_dp(p);
    ASSERT_TRUE(dp.feasible) << "trial " << trial << ", " << n << " classes";
    EXPECT_LE(dp.peak_bytes, p.capacity_bytes) << "trial " << trial;
    // One byte less and nothing fits.
    p.capacity_bytes = std::nextafter(p.capacity_bytes, 0.0) - 1;
    EXPECT_FALSE(solve_dp(p).feasible) << "trial " << trial;
  }
}

TEST(SolverScale, FitsExactlyWhenBruteForceDoesOnTightLimits) {
  // Small instances whose limit is the exact peak of some selection: feasible, tightly.
  std::mt19937_64 rng(77);
  std::uniform_int_distribution<int> classes(1, 9), items(1, 4);
  std::uniform_real_distribution<double> seconds(0.01, 1.0), resident(1e6, 1e9), transient(0, 3e8);
  for (int trial = 0; trial < 300; ++trial) {
    McProblem p;
    const int n = classes(rng);
    for (int c = 0; c < n; ++c) {
      std::vector<McItem> list(static_cast<std::size_t>(items(rng)));
      for (McItem& it : list) it = {seconds(rng), resident(rng), transient(rng)};
      p.classes.push_back(list);
    }
    std::vector<int> some(p.classes.size());
    for (std::size_t c = 0; c < some.size(); ++c) some[c] = static_cast<int>(rng() % p.classes[c].size());
    p.capacity_bytes = selection_peak_bytes(p, some);
    const McSolution brute = solve_brute_force(p);
    expect_within_bounds(solve_dp(p), brute, p, trial);
    const McSolution greedy = solve_lp_greedy(p);
    ASSERT_EQ(greedy.feasible, brute.feasible) << "trial " << trial;
    EXPECT_LE(greedy.peak_bytes, p.capacity_bytes) << "trial " << trial;
  }
}

TEST(SolverScale, GroupedDpAgreesWithBruteForce) {
  // The block DP (forced on small instances) and its bounds against every combination.
  std::mt19937_64 rng(5);
  DpOptions grouped;
  grouped.max_single_classes = 0;
  int feasible = 0;
  for (int trial = 0; trial < 200; ++trial) {
    McProblem p = repeated_layers(rng, 1 + trial % 9, 1 + trial % 3, 1e8);
    double heaviest = 0;
    for (const auto& items : p.classes) {
      double h = 0;
      for (const McItem& it : items) h = std::max(h, it.resident_bytes + it.transient_bytes);
      heaviest += h;
    }
    p.capacity_bytes = heaviest * std::uniform_real_distribution<double>(0.3, 1.1)(rng);
    const McSolution brute = solve_brute_force(p);
    expect_within_bounds(solve_dp(p, grouped), brute, p, trial);
    feasible += brute.feasible ? 1 : 0;
  }
  EXPECT_GE(feasible, 100);
}

TEST(SolverScale, IdenticalClassesAreGrouped) {
  McProblem p;
  p.classes = {{{1, 2, 0}}, {{1, 3, 0}}, {{1, 2, 0}}, {{1, 2, 0}, {0.5, 4, 0}}, {{1, 3, 0}}};
  const std::vector<std::vector<std::size_t>> groups = identical_class_groups(p);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0], (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(groups[1], (std::vector<std::size_t>{1, 4}));
  EXPECT_EQ(groups[2], (std::vector<std::size_t>{3}));
}

}  // namespace
}  // namespace shardscope
