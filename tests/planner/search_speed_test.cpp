// The planner's speed work keeps every number: shared LP bounds equal lp_lower_bound bit for bit, hashed
// identical-class groups equal a pairwise grouping, the banded DP equals a full-width reference DP, and
// plan_scenario's baselines on worker threads report exactly what one strategy at a time reports.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// `n` classes drawn from `kinds` distinct item lists (repeated layers), in a random order.
McProblem repeated(std::mt19937_64& rng, int n, int kinds, int items) {
  std::uniform_real_distribution<double> seconds(0.1, 2.0), resident(1e6, 9e6), transient(0, 4e6);
  std::vector<std::vector<McItem>> lists(static_cast<std::size_t>(kinds));
  for (auto& list : lists) {
    for (int j = 0; j < items; ++j)
      list.push_back({seconds(rng), resident(rng), std::floor(transient(rng) / 1e6) * 1e6});
  }
  McProblem p;
  std::uniform_int_distribution<int> pick(0, kinds - 1);
  for (int c = 0; c < n; ++c) p.classes.push_back(lists[static_cast<std::size_t>(pick(rng))]);
  p.capacity_bytes = 0.6 * n * 9e6;
  return p;
}

TEST(SearchSpeed, SharedLpBoundsEqualLpLowerBoundBitForBit) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const McProblem p = repeated(rng, 5 + trial * 7, 1 + trial % 5, 2 + trial % 6);
    const std::vector<double> thresholds = transient_thresholds(p);
    const std::vector<double> shared = lp_bounds_by_threshold(p, thresholds);
    ASSERT_EQ(shared.size(), thresholds.size());
    for (std::size_t i = 0; i < thresholds.size(); ++i) {
      const double direct = lp_lower_bound(p, thresholds[i], p.capacity_bytes - thresholds[i]);
      if (std::isinf(direct)) {
        EXPECT_TRUE(std::isinf(shared[i]));
      } else {
        EXPECT_EQ(shared[i], direct) << trial << " " << i;
      }
    }
  }
}

TEST(SearchSpeed, IdenticalClassGroupsEqualPairwiseGrouping) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    McProblem p = repeated(rng, 60, 1 + trial % 7, 3);
    p.classes[5][0].seconds = -0.0 + p.classes[5][0].seconds;  // exact copies stay equal
    std::vector<std::vector<std::size_t>> expected;
    std::vector<bool> placed(p.classes.size(), false);
    for (std::size_t a = 0; a < p.classes.size(); ++a) {
      if (placed[a]) continue;
      expected.push_back({a});
      for (std::size_t b = a + 1; b < p.classes.size(); ++b) {
        const auto& x = p.classes[a];
        const auto& y = p.classes[b];
        bool same = x.size() == y.size();
        for (std::size_t j = 0; same && j < x.size(); ++j) {
          same = x[j].seconds == y[j].seconds && x[j].resident_bytes == y[j].resident_bytes &&
                 x[j].transient_bytes == y[j].transient_bytes;
        }
        if (same) {
          expected.back().push_back(b);
          placed[b] = true;
        }
      }
    }
    EXPECT_EQ(identical_class_groups(p), expected) << trial;
    const std::vector<std::size_t> rep = class_representatives(p);
    for (const auto& group : expected) {
      for (std::size_t c : group) EXPECT_EQ(rep[c], group.front());
    }
  }
}

// The rounded-up DP at one threshold over every bin, the plain way: value at the full capacity.
double full_width_dp(const McProblem& p, double threshold, double capacity, double quantum) {
  const auto bins = static_cast<std::size_t>(std::floor(capacity / quantum + 1e-9));
  std::vector<double> f(bins + 1, 0.0), next(bins + 1);
  for (const auto& items : p.classes) {
    std::fill(next.begin(), next.end(), std::numeric_limits<double>::infinity());
    for (const McItem& it : items) {
      const double w = std::ceil(it.resident_bytes / quantum - 1e-9);
      if (it.transient_bytes > threshold || w > static_cast<double>(bins)) continue;
      const auto wi = static_cast<std::size_t>(w);
      for (std::size_t m = wi; m <= bins; ++m) next[m] = std::min(next[m], f[m - wi] + it.seconds);
    }
    f.swap(next);
  }
  return f[bins];
}

TEST(SearchSpeed, BandedDpEqualsFullWidthDp) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    McProblem p = repeated(rng, 3 + trial % 40, 1 + trial % 4, 2 + trial % 5);
    p.capacity_bytes *= 0.5 + 0.02 * (trial % 30);
    const McSolution sol = solve_dp(p);
    // Every plan the DP returns is the best of the quantised model at some threshold: the full-width DP at
    // that threshold (the largest transient it picked) finds the same seconds.
    if (!sol.feasible) continue;
    double threshold = 0;
    for (std::size_t c = 0; c < p.classes.size(); ++c)
      threshold = std::max(threshold, p.classes[c][static_cast<std::size_t>(sol.picks[c])].transient_bytes);
    const double quantum = std::max(1.0, p.capacity_bytes / DpOptions{}.bins);
    const double full = full_width_dp(p, threshold, p.capacity_bytes - threshold, quantum);
    EXPECT_LE(full, sol.seconds * (1 + 1e-12)) << trial;
    EXPECT_GE(sol.lower_bound_seconds, 0);
    EXPECT_LE(sol.lower_bound_seconds, sol.seconds);
  }
}

TEST(SearchSpeed, ParetoFrontIsTheSameOnAnyNumberOfThreads) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    const McProblem p = repeated(rng, 20 + trial, 3, 6);
    DpOptions one;
    one.threads = 1;
    const std::vector<ParetoPoint> reference = pareto_front(p, one);
    for (int threads : {2, 3, 7}) {
      DpOptions many;
      many.threads = threads;
      const std::vector<ParetoPoint> front = pareto_front(p, many);
      ASSERT_EQ(front.size(), reference.size()) << trial << " " << threads;
      for (std::size_t i = 0; i < front.size(); ++i) {
        EXPECT_EQ(front[i].peak_bytes, reference[i].peak_bytes);
        EXPECT_EQ(front[i].seconds, reference[i].seconds);
      }
    }
  }
}

// Observer calls as text, in order.
class Transcript : public PlanObserver {
 public:
  void strategy_started(std::string_view name, int index, int count) override {
    text += "start " + std::string(name) + " " + std::to_string(index) + "/" + std::to_string(count) + "\n";
  }
  void batch_solved(std::string_view strategy, const BatchRow& row) override {
    text += "row " + std::string(strategy) + " " + std::to_string(row.micro_batch) + " " +
            std::to_string(static_cast<int>(row.status)) + " " + std::to_string(row.iteration_seconds) + "\n";
  }
  void progress(double fraction) override { text += "progress " + std::to_string(fraction) + "\n"; }
  std::string text;
};

TEST(SearchSpeed, ThreadedBaselinesReportWhatSequentialStrategiesReport) {
  const Scenario s = parse_scenario_string(
      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 8GB, runtime_reserve: 512MiB, checkpointing: search, max_micro_batch: 8}\n",
      "threads.yaml");
  Transcript live;
  const PlanReport report = plan_scenario(ValidScenario(s), Calibration{},
                                          PlanRequest{.with_baselines = true, .search = {.observer = &live}});
  // The same strategies one at a time, in order.
  std::vector<SearchSpace> spaces{full_space(s.training)};
  for (SearchSpace& b : baseline_spaces(s.training)) spaces.push_back(std::move(b));
  ASSERT_EQ(report.baselines.size() + 1, spaces.size());
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    const StrategyResult one = plan_strategy(ValidScenario(s), Calibration{}, spaces[i]);
    const StrategyResult& threaded = i == 0 ? report.best : report.baselines[i - 1];
    EXPECT_EQ(threaded.batches, one.batches) << spaces[i].name;
    if (i > 0 || report.best.adopted_from.empty()) {
      EXPECT_EQ(threaded.plan.predicted.iteration_seconds, one.plan.predicted.iteration_seconds)
          << spaces[i].name;
    }
    EXPECT_EQ(threaded.plan.scenario_digest, one.plan.scenario_digest) << spaces[i].name;
    const std::string start =
        "start " + spaces[i].name + " " + std::to_string(i) + "/" + std::to_string(spaces.size()) + "\n";
    EXPECT_NE(live.text.find(start), std::string::npos) << spaces[i].name;
  }
  // The live transcript lists the strategies in registry order, each followed by its own rows only.
  std::size_t at = 0;
  for (const SearchSpace& space : spaces) {
    const std::size_t next = live.text.find("start " + space.name + " ", at);
    ASSERT_NE(next, std::string::npos) << space.name;
    at = next + 1;
  }
  Transcript again;
  (void)plan_scenario(ValidScenario(s), Calibration{},
                      PlanRequest{.with_baselines = true, .search = {.observer = &again}});
  EXPECT_EQ(live.text, again.text);
  // Everything on the calling thread: the same report and the same observer calls.
  Transcript sequential;
  const PlanReport one_thread =
      plan_scenario(ValidScenario(s), Calibration{},
                    PlanRequest{.with_baselines = true, .search = {.observer = &sequential, .threads = 1}});
  EXPECT_EQ(live.text, sequential.text);
  EXPECT_EQ(one_thread.best.batches, report.best.batches);
  EXPECT_EQ(one_thread.best.plan.predicted.iteration_seconds, report.best.plan.predicted.iteration_seconds);
  EXPECT_EQ(one_thread.best.lower_bound_seconds, report.best.lower_bound_seconds);
  ASSERT_EQ(one_thread.pareto.size(), report.pareto.size());
  for (std::size_t i = 0; i < report.pareto.size(); ++i) {
    EXPECT_EQ(one_thread.pareto[i].peak_bytes, report.pareto[i].peak_bytes);
    EXPECT_EQ(one_thread.pareto[i].seconds, report.pareto[i].seconds);
  }
  for (std::size_t i = 0; i < report.baselines.size(); ++i)
    EXPECT_EQ(one_thread.baselines[i].batches, report.baselines[i].batches) << report.baselines[i].strategy;
  // Many threads (more than batch sizes or strategies) change nothing either.
  Transcript many;
  const PlanReport eight =
      plan_scenario(ValidScenario(s), Calibration{},
                    PlanRequest{.with_baselines = true, .search = {.observer = &many, .threads = 8}});
  EXPECT_EQ(live.text, many.text);
  EXPECT_EQ(eight.best.batches, report.best.batches);
}

// A 3 GB limit (tests/hostile/inputs/f08-3gb.yaml) where the pick of six batch sizes, searched with
// neighbours' buffers alike, holds more than the limit in its whole plan, so those batch sizes are searched
// again under the bound for any neighbours: that second search, on helper threads ahead of the scan, and
// the candidates kept for --refine (collected in scan order) are the same on any number of threads.
TEST(SearchSpeed, SecondSearchAndRefineCandidatesAreTheSameOnAnyNumberOfThreads) {
  const Scenario s = parse_scenario_string(
      "model:\n  transformer: {layers: 4, hidden: 2048, heads: 16, vocab: 50257, sequence_length: 1024}\n"
      "cluster: {preset: titan-rtx-8-pcie3}\n"
      "training: {memory_limit: 3GB, runtime_reserve: 512MiB, precision: mixed-fp16, "
      "slice_granularities: [1, 2, 4], max_micro_batch: 8}\n",
      "second-search.yaml");
  const PlanRequest request{.with_baselines = true, .candidate_plans = 6, .search = {.threads = 1}};
  const PlanReport one = plan_scenario(ValidScenario(s), Calibration{}, request);
  ASSERT_TRUE(one.best.fits);
  ASSERT_GE(one.candidates.size(), 2u);
  for (const int threads : {2, 8}) {
    PlanRequest on_threads = request;
    on_threads.search.threads = threads;
    const PlanReport many = plan_scenario(ValidScenario(s), Calibration{}, on_threads);
    EXPECT_EQ(report_to_json(many, s).dump(), report_to_json(one, s).dump()) << threads;
    EXPECT_EQ(many.best.solver_cells, one.best.solver_cells) << threads;
    ASSERT_EQ(many.candidates.size(), one.candidates.size()) << threads;
    for (std::size_t i = 0; i < one.candidates.size(); ++i) {
      EXPECT_TRUE(same_plan_choices(many.candidates[i], one.candidates[i])) << threads << " " << i;
      EXPECT_EQ(many.candidates[i].strategy, one.candidates[i].strategy) << threads << " " << i;
      EXPECT_EQ(many.candidates[i].predicted.samples_per_second,
                one.candidates[i].predicted.samples_per_second);
    }
  }
}

}  // namespace
}  // namespace shardscope
