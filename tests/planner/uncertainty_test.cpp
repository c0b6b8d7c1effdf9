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
      "under fsdp1 on A100 were off by 5.0 % on average (bias -2.0 %, worst 9.0 %)");
  // Without a calibration file the presets' rows apply, whatever is passed.
  const ThroughputUncertainty presets = throughput_uncertainty(llama("fsdp1", 2), 1000, error);
  EXPECT_EQ(presets.basis, UncertaintyBasis::published);
}

}  // namespace
}  // namespace shardscope
