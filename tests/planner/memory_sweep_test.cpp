// The memory sweep against every plan enumerated: on a one-layer model, each breakpoint is a plan that
// exists at that memory, and no plan of any micro-batch is faster than the sweep at its memory (up to the
// DP's rounding of each operator to one quantum).
#include "planner/search/memory_sweep.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "planner/io/scenario_parser.hpp"
#include "planner/search/batch_scan.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"
#include "planner/search/solvers/mckp.hpp"

namespace shardscope {
namespace {

struct Enumerated {
  double peak_bytes = 0;
  double samples_per_second = 0;
};

// Every plan of the product's space at every micro-batch the scan tries, by brute force.
std::vector<Enumerated> every_plan(const ValidScenario& s, std::size_t& classes) {
  std::vector<Enumerated> out;
  for (const std::int64_t micro_batch : batch_candidates(s)) {
    const PlanInstance inst =
        build_instance(s, Calibration{}, full_space(s.training),
                       TrainingStep{micro_batch, accumulation_steps_for(s, micro_batch)});
    classes = inst.problem.classes.size();
    std::vector<int> picks(classes, 0);
    while (true) {
      const double seconds = selection_seconds(inst.problem, picks);
      out.push_back({selection_peak_bytes(inst.problem, picks) + inst.fixed_bytes,
                     inst.samples_per_iteration / seconds});
      std::size_t c = 0;
      while (c < classes && ++picks[c] == static_cast<int>(inst.problem.classes[c].size())) picks[c++] = 0;
      if (c == classes) break;
    }
  }
  return out;
}

// The sweep's throughput with `bytes` per GPU: its last breakpoint at or below them (0: none).
double sweep_at(const MemorySweep& sweep, double bytes) {
  double best = 0;
  for (const MemoryBreakpoint& b : sweep.breakpoints) {
    if (b.peak_bytes <= bytes) best = b.samples_per_second;
  }
  return best;
}

TEST(MemorySweep, AgreesWithEveryPlanEnumeratedOnAOneLayerModel) {
  const ValidScenario s(parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-a100}\ntraining: {precision: mixed-bf16, memory_limit: 6GiB, max_micro_batch: "
      "8, "
      "slice_granularities: [1, 2]}\n",
      "s.yaml"));
  const MemorySweep sweep = memory_sweep(s, Calibration{}, 1);
  ASSERT_GE(sweep.breakpoints.size(), 3u);
  for (std::size_t i = 1; i < sweep.breakpoints.size(); ++i) {
    EXPECT_GT(sweep.breakpoints[i].peak_bytes, sweep.breakpoints[i - 1].peak_bytes);
    EXPECT_GT(sweep.breakpoints[i].samples_per_second, sweep.breakpoints[i - 1].samples_per_second);
  }
  std::size_t classes = 0;
  const std::vector<Enumerated> plans = every_plan(s, classes);
  ASSERT_GT(plans.size(), 1000u);
  std::printf("%zu plans of %zu operators, %zu breakpoints\n", plans.size(), classes,
              sweep.breakpoints.size());
  // The DP rounds each operator's bytes up to one quantum of at most the device's memory / 16384.
  const double rounding =
      static_cast<double>(classes) * static_cast<double>(s.cluster.gpu.memory_bytes) / 16384;
  for (const MemoryBreakpoint& b : sweep.breakpoints) {
    const bool exists = std::any_of(plans.begin(), plans.end(), [&](const Enumerated& p) {
      return p.peak_bytes <= b.peak_bytes * (1 + 1e-12) &&
             p.samples_per_second >= b.samples_per_second * (1 - 1e-9);
    });
    EXPECT_TRUE(exists) << b.peak_bytes << " B, " << b.samples_per_second << " samples/s";
  }
  const double device = static_cast<double>(s.cluster.gpu.memory_bytes);
  for (const Enumerated& p : plans) {
    if (p.peak_bytes + rounding > device) continue;
    EXPECT_GE(sweep_at(sweep, p.peak_bytes + rounding), p.samples_per_second * (1 - 1e-9)) << p.peak_bytes;
  }
  // The limit and the breakpoints either side of it.
  ASSERT_GE(sweep.at_limit, 0);
  EXPECT_LE(sweep.breakpoints[static_cast<std::size_t>(sweep.at_limit)].peak_bytes, sweep.limit_bytes);
  if (sweep.next >= 0) {
    EXPECT_EQ(sweep.next, sweep.at_limit + 1);
    EXPECT_GT(sweep.breakpoints[static_cast<std::size_t>(sweep.next)].peak_bytes, sweep.limit_bytes);
  }
}

TEST(MemorySweep, ALimitBelowEveryPlanHasNothingAtIt) {
  const ValidScenario s(parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-a100}\ntraining: {precision: mixed-bf16, memory_limit: 1MiB, max_micro_batch: "
      "2}\n",
      "s.yaml"));
  const MemorySweep sweep = memory_sweep(s, Calibration{}, 1);
  EXPECT_EQ(sweep.at_limit, -1);
  EXPECT_EQ(sweep.next, 0);
  ASSERT_FALSE(sweep.breakpoints.empty());
}

// A caller that no longer wants the sweep (the GUI after a newer edit) stops it between micro-batches.
TEST(MemorySweep, AnObserverThatCancelsStopsIt) {
  struct Counting final : PlanObserver {
    mutable int asked = 0;
    int allow = 0;
    bool cancelled() const override { return ++asked > allow; }
  };
  const ValidScenario s(parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-a100}\ntraining: {precision: mixed-bf16, max_micro_batch: 4}\n",
      "s.yaml"));
  Counting stop_at_once;
  EXPECT_THROW(memory_sweep(s, Calibration{}, 1, &stop_at_once), PlanCancelled);
  EXPECT_EQ(stop_at_once.asked, 1);
  Counting stop_at_second;
  stop_at_second.allow = 1;
  EXPECT_THROW(memory_sweep(s, Calibration{}, 1, &stop_at_second), PlanCancelled);
  EXPECT_EQ(stop_at_second.asked, 2);
  Counting never;
  never.allow = 1000;
  const MemorySweep sweep = memory_sweep(s, Calibration{}, 1, &never);
  EXPECT_EQ(sweep.breakpoints.size(), memory_sweep(s, Calibration{}, 1).breakpoints.size());
  EXPECT_GE(never.asked, 3);  // once per micro-batch 1, 2, 3, 4 (those the scan tries)
}

}  // namespace
}  // namespace shardscope
