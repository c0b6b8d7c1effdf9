// Finding 3 on scenarios nobody shipped: on seeded random transformers, clusters and memory limits, the
// recommended plan is never slower than a baseline that fits, and fits whenever one does.
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {
namespace {

// A scenario drawn from `rng`: 2 to 10 layers of a transformer of 256 to 2048 wide on one of the shipped
// cluster presets (one or two nodes), under a memory limit from tight to loose, with or without
// checkpointing and slicing.
std::string random_scenario(std::mt19937& rng, int index) {
  const auto pick = [&rng](const std::vector<std::string>& values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
  };
  const int layers = std::uniform_int_distribution<int>(2, 10)(rng);
  const int hidden = 256 << std::uniform_int_distribution<int>(0, 3)(rng);
  const std::string cluster = pick({"titan-rtx-8-pcie3", "dgx-a100", "a100-40gb-2x8-100gbe", "dgx-h100"});
  const std::string nodes = cluster == "titan-rtx-8-pcie3" ? "1" : pick({"1", "2"});
  return "name: random-" + std::to_string(index) +
         "\nmodel:\n  transformer: {layers: " + std::to_string(layers) +
         ", hidden: " + std::to_string(hidden) + ", heads: " + std::to_string(hidden / 64) +
         ", ffn_hidden: " + std::to_string(4 * hidden) + ", vocab: " + pick({"8192", "32000", "50257"}) +
         ", sequence_length: " + pick({"128", "512", "2048"}) + "}\ncluster: {preset: " + cluster +
         ", nodes: " + nodes +
         "}\ntraining:\n  memory_limit: " + pick({"1GiB", "2GiB", "4GiB", "8GiB", "24GiB"}) +
         "\n  checkpointing: " + pick({"search", "none", "all"}) +
         "\n  slice_granularities: " + pick({"[1]", "[1, 2, 4]"}) +
         "\n  max_micro_batch: " + pick({"2", "8"}) + "\n";
}

TEST(Recommendation, NeverSlowerThanAnyBaselineOnRandomScenarios) {
  std::mt19937 rng(20261123);
  int fitting_baselines = 0;
  int scenarios_with_a_fit = 0;
  int adopted = 0;  // recommendations that are a baseline's plan, faster than the search's pick
  for (int i = 0; i < 16; ++i) {
    const std::string text = random_scenario(rng, i);
    const Scenario s = parse_scenario_string(text, "random.yaml");
    const Calibration calibration = scenario_calibration(s);
    const PlanReport report = plan_scenario(ValidScenario(s), calibration);
    if (report.best.fits) ++scenarios_with_a_fit;
    if (!report.best.adopted_from.empty()) ++adopted;
    for (const StrategyResult& b : report.baselines) {
      if (!b.fits) continue;
      ++fitting_baselines;
      ASSERT_TRUE(report.best.fits) << text << b.strategy << " fits";
      EXPECT_GE(report.best.plan.predicted.samples_per_second, b.plan.predicted.samples_per_second)
          << text << b.strategy;
    }
  }
  // The draw exercised the comparison: most scenarios fit, and with them many baselines.
  EXPECT_GE(scenarios_with_a_fit, 8);
  EXPECT_GE(fitting_baselines, 8 * 10);
  std::cout << scenarios_with_a_fit << " of 16 scenarios fit; " << fitting_baselines << " baselines fit; "
            << adopted << " recommendations adopted a baseline's plan\n";
}

}  // namespace
}  // namespace shardscope
