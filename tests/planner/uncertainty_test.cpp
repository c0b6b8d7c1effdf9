// A plan's stated throughput uncertainty: the runtime profile's published errors for the scenario's GPU,
// inside or outside the scored rows' ranges, none, or a calibration file's.
#include "planner/report/uncertainty.hpp"

#include <gtest/gtest.h>

#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

Scenario llama(const std::string& runtime, int nodes, const std::string& cluster = "dgx-a100") {
  return parse_scenario_string("model: {preset: llama-7b}\ncluster: {preset: " + cluster + ", nodes: " +
                                   std::to_string(nodes) + "}\nexecution: {runtime: " + runtime + "}\n",
                               "u.yaml");
}

TEST(Uncertainty, PublishedRowsInsideTheirRangesGiveTheInterval) {
  const Scenario s = llama("fsdp1", 2);
  const ThroughputUncertainty u = throughput_uncertainty(s, 1000);
  ASSERT_EQ(u.basis, UncertaintyBasis::published);
  ASSERT_TRUE(u.published.has_value());
  EXPECT_EQ(u.published->gpu, "A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(u.low_tokens_per_second, 1000 * (1 - u.published->mape));
  EXPECT_DOUBLE_EQ(u.high_tokens_per_second, 1000 * (1 + u.published->mape));
  EXPECT_NE(uncertainty_text(s, u).find("held-out published rows under fsdp1 on A100-SXM4-80GB"),
            std::string::npos)
      << uncertainty_text(s, u);
}

TEST(Uncertainty, OutsideTheScoredGpuCountsIsExtrapolated) {
  const Scenario s = llama("fsdp1", 512);
  const ThroughputUncertainty u = throughput_uncertainty(s, 1000);
  EXPECT_EQ(u.basis, UncertaintyBasis::extrapolated);
  EXPECT_EQ(u.outside, "4096 GPUs");
  EXPECT_NE(uncertainty_text(s, u).find("this scenario's 4096 GPUs lie outside them"), std::string::npos);
}

TEST(Uncertainty, NoScoredRowsOrACalibrationSayWhy) {
  const Scenario deepspeed = llama("deepspeed", 2);
  const ThroughputUncertainty none = throughput_uncertainty(deepspeed, 1000);
  EXPECT_EQ(none.basis, UncertaintyBasis::uncalibrated);
  EXPECT_FALSE(none.published.has_value());
  EXPECT_NE(uncertainty_text(deepspeed, none).find("no published measurement of deepspeed on A100-SXM4-80GB"),
            std::string::npos);
  Scenario calibrated = llama("fsdp1", 2);
  calibrated.planner.calibration_file = "c.yaml";
  const ThroughputUncertainty c = throughput_uncertainty(calibrated, 1000);
  EXPECT_EQ(c.basis, UncertaintyBasis::calibration);
  EXPECT_NE(uncertainty_text(calibrated, c).find("priced with c.yaml"), std::string::npos);
  EXPECT_NE(uncertainty_text(calibrated, c).find("it states no prediction_error"), std::string::npos);
}

// A calibration that states its own prediction error gives the interval from it, not the presets' rows.
TEST(Uncertainty, ACalibrationsOwnPredictionErrorGivesTheInterval) {
  Scenario calibrated = llama("fsdp1", 2);
  calibrated.planner.calibration_file = "c.yaml";
  const CalibrationPredictionError error{4, 0.05, -0.02, 0.09, "held-out rows of t.yaml under fsdp1 on A100"};
  const ThroughputUncertainty u = throughput_uncertainty(calibrated, 1000, error);
  EXPECT_EQ(u.basis, UncertaintyBasis::calibration);
  EXPECT_FALSE(u.published.has_value());
  EXPECT_DOUBLE_EQ(u.low_tokens_per_second, 950);
  EXPECT_DOUBLE_EQ(u.high_tokens_per_second, 1050);
  EXPECT_EQ(
      uncertainty_text(calibrated, u),
      "calibration: 950-1.05 K tokens/s; priced with c.yaml, whose predictions of 4 held-out rows of t.yaml "
      "under fsdp1 on A100 were off by 5.0 % on average (bias -2.0 %, worst 9.0 %); peak memory not "
      "scored");
  // Without a calibration file the presets' rows apply, whatever is passed.
  const ThroughputUncertainty presets = throughput_uncertainty(llama("fsdp1", 2), 1000, error);
  EXPECT_EQ(presets.basis, UncertaintyBasis::published);
}

// Peak memory has its own flag: scored where the published rows measured it (fsdp2 on H100: torchtitan's
// max_reserved column), else said to be unscored (fsdp1's llm-foundry tables have no memory column).
TEST(Uncertainty, PeakMemoryIsScoredOnlyWhereRowsMeasuredIt) {
  const Scenario h100 = llama("fsdp2", 2, "dgx-h100");
  const ThroughputUncertainty scored = throughput_uncertainty(h100, 1000);
  ASSERT_TRUE(scored.published.has_value());
  EXPECT_EQ(scored.memory_rows, scored.published->memory_rows);
  EXPECT_GT(scored.memory_rows, 0);
  EXPECT_NE(uncertainty_text(h100, scored).find("peak memory off by 10.3 % on average on the 7 of them"),
            std::string::npos)
      << uncertainty_text(h100, scored);
  const Scenario a100 = llama("fsdp1", 2);
  const ThroughputUncertainty unscored = throughput_uncertainty(a100, 1000);
  EXPECT_EQ(unscored.memory_rows, 0);
  EXPECT_NE(uncertainty_text(a100, unscored).find("none measured memory: peak memory not scored"),
            std::string::npos);
}

// "A faster than B with probability": Phi(ln(a / b) / pair_sd), from the pairs behind the uncertainty; none
// without scored pairs. By hand: Phi(ln 1.1 / 0.1) = Phi(0.953102) = 0.8297308; Phi(ln(1 / 1.2) / 0.05) =
// 1.3295e-4.
TEST(Uncertainty, ProbabilityFasterFromTheScoredPairs) {
  ThroughputUncertainty u;
  EXPECT_FALSE(probability_faster(u, 110, 100).has_value());  // no pairs
  u.pairs = 3;
  EXPECT_FALSE(probability_faster(u, 110, 100).has_value());  // no spread
  u.pair_sd = 0.1;
  EXPECT_NEAR(*probability_faster(u, 110, 100), 0.8297307524, 1e-9);
  EXPECT_NEAR(*probability_faster(u, 100, 110), 1 - 0.8297307524, 1e-9);  // the two orders add up to 1
  EXPECT_DOUBLE_EQ(*probability_faster(u, 100, 100), 0.5);
  EXPECT_FALSE(probability_faster(u, 0, 100).has_value());
  u.pair_sd = 0.05;
  EXPECT_NEAR(*probability_faster(u, 1, 1.2), 1.32953848e-4, 1e-11);
  // The published rows give the pairs under a framework's profile; a calibration's own.
  const ThroughputUncertainty published = throughput_uncertainty(llama("fsdp1", 2), 1000);
  ASSERT_TRUE(published.published.has_value());
  EXPECT_GT(published.pairs, 0);
  EXPECT_EQ(published.pairs, published.published->pairs);
  EXPECT_DOUBLE_EQ(published.pair_sd, published.published->pair_sd);
  Scenario calibrated = llama("fsdp1", 2);
  calibrated.planner.calibration_file = "c.yaml";
  CalibrationPredictionError error{8, 0.03, 0.03, 0.05, "measured iterations"};
  EXPECT_EQ(throughput_uncertainty(calibrated, 1000, error).pairs, 0);
  error.pairs = 28;
  error.pair_sd = 0.016;
  const ThroughputUncertainty c = throughput_uncertainty(calibrated, 1000, error);
  EXPECT_EQ(c.pairs, 28);
  const std::string text = probability_faster_text(c, 110, {"fsdp", "zero-2"}, {100, 120});
  EXPECT_NE(text.find("1.6 % rms"), std::string::npos) << text;
  EXPECT_NE(text.find("28 pairs of the calibration's scored rows"), std::string::npos) << text;
  EXPECT_NE(text.find("fsdp 1.00, zero-2 0.00"), std::string::npos) << text;
  EXPECT_EQ(probability_faster_text(ThroughputUncertainty{}, 110, {"fsdp"}, {100}), "");
  EXPECT_EQ(probability_faster_text(c, 110, {}, {}), "");
}

}  // namespace
}  // namespace shardscope
