// The calibration fit on a synthetic machine (tests/fit/synthetic_machine.hpp: measurements generated from a
// known truth with 1 % deterministic noise; a test of the fitter, not evidence about hardware): the truth is
// recovered within stated tolerances, the written calibration.yaml reads back exactly, the planner with it
// reproduces the points it was fitted on, and fits the points cannot support are refused naming the quantity.
#include <gtest/gtest.h>

#include <cmath>

#include "planner/core/error.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/io/calibration_parser.hpp"
#include "tests/fit/synthetic_machine.hpp"
#include "validate/fit/calibration_fit.hpp"
#include "validate/fit/calibration_writer.hpp"
#include "validate/fit/fit_report.hpp"

namespace shardscope {
namespace {

using testing::SyntheticMachine;

fit::FitResult fit_of(const SyntheticMachine& m, const nlohmann::ordered_json& j) {
  return fit::fit_calibration({shardscope::parse_measurements(j.dump(), "synthetic.json")}, m.cluster);
}

double rel(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

const fit::QuantityFit& quantity(const fit::FitResult& r, const std::string& name) {
  for (const fit::QuantityFit& q : r.quantities)
    if (q.quantity == name) return q;
  throw std::runtime_error("no quantity " + name);
}

// Tolerances: alpha 5 %, bandwidth 3 %, efficiency 5 % where the bandwidth term is at least a quarter of the
// time (below that a step's time barely depends on it), FLOP fraction 2 %, overlap slowdown 0.02 absolute.
TEST(CalibrationFit, RecoversTheTruthOfASyntheticMachine) {
  const SyntheticMachine m = testing::titan_truth();
  const fit::FitResult r = fit_of(m, testing::micro_benchmarks(m));
  for (LinkClass lc : {LinkClass::same_switch, LinkClass::cross_switch, LinkClass::cross_socket}) {
    const auto i = static_cast<std::size_t>(lc);
    ASSERT_TRUE(r.calibration.links[i].has_value()) << to_string(lc);
    const LinkCalibration& truth = *m.truth.links[i];
    const LinkCalibration& got = *r.calibration.links[i];
    EXPECT_LT(rel(got.alpha_seconds, truth.alpha_seconds), 0.05)
        << to_string(lc) << " alpha " << got.alpha_seconds;
    EXPECT_LT(rel(got.bytes_per_second, truth.bytes_per_second), 0.03)
        << to_string(lc) << " bandwidth " << got.bytes_per_second;
    for (double message = 8; message <= (1 << 30); message *= 2) {
      const double e = message_efficiency_factor(m.truth, lc, message);
      const double bandwidth_term = message / (e * truth.bytes_per_second);
      if (bandwidth_term < truth.alpha_seconds / 3) continue;  // under a quarter of the step time
      EXPECT_LT(rel(message_efficiency_factor(r.calibration, lc, message), e), 0.05)
          << to_string(lc) << " efficiency at " << message << " B";
    }
  }
  for (OperatorKind k : {OperatorKind::attention, OperatorKind::mlp, OperatorKind::head}) {
    const auto i = static_cast<std::size_t>(k);
    ASSERT_TRUE(r.calibration.achievable_fraction[i].has_value());
    EXPECT_LT(rel(*r.calibration.achievable_fraction[i], *m.truth.achievable_fraction[i]), 0.02)
        << to_string(k);
  }
  EXPECT_NEAR(r.calibration.overlap_slowdown, m.truth.overlap_slowdown, 0.02);
  EXPECT_EQ(*r.calibration.runtime_reserve_bytes, *m.truth.runtime_reserve_bytes);
  // Every fitted quantity with R^2 has it above the threshold, and the bandwidth fits have one.
  for (const fit::QuantityFit& q : r.quantities) {
    if (q.r_squared) {
      EXPECT_GE(*q.r_squared, 0.9) << q.quantity;
    }
  }
  EXPECT_TRUE(quantity(r, "links.pcie-same-switch.bandwidth").r_squared.has_value());
}

TEST(CalibrationFit, WrittenCalibrationReadsBackToTheSameNumbers) {
  const SyntheticMachine m = testing::titan_truth();
  const fit::FitResult r = fit_of(m, testing::micro_benchmarks(m));
  const Calibration back =
      parse_calibration_string(fit::calibration_yaml(r.calibration, "header\nline"), "c.yaml");
  for (std::size_t i = 0; i < back.links.size(); ++i) {
    ASSERT_EQ(back.links[i].has_value(), r.calibration.links[i].has_value());
    if (back.links[i]) {
      EXPECT_EQ(back.links[i]->alpha_seconds, r.calibration.links[i]->alpha_seconds);
      EXPECT_EQ(back.links[i]->bytes_per_second, r.calibration.links[i]->bytes_per_second);
    }
    EXPECT_EQ(back.link_message_efficiency[i], r.calibration.link_message_efficiency[i]);
    EXPECT_EQ(back.collective_efficiency[i], r.calibration.collective_efficiency[i]);
  }
  EXPECT_EQ(back.achievable_fraction, r.calibration.achievable_fraction);
  EXPECT_EQ(back.overlap_slowdown, r.calibration.overlap_slowdown);
  EXPECT_EQ(back.slice_overhead_seconds, r.calibration.slice_overhead_seconds);
  EXPECT_EQ(back.runtime_reserve_bytes, r.calibration.runtime_reserve_bytes);
  EXPECT_FALSE(back.prediction_error.has_value());
  // A prediction error, its source text with quotes, a backslash and a line break, reads back the same.
  Calibration with = r.calibration;
  with.prediction_error =
      CalibrationPredictionError{5, 0.0123, -0.004, 0.031, "rows of \"a\\b\".yaml\nunder x"};
  const Calibration again = parse_calibration_string(fit::calibration_yaml(with, ""), "c.yaml");
  ASSERT_TRUE(again.prediction_error.has_value());
  EXPECT_EQ(again.prediction_error->rows, 5);
  EXPECT_EQ(again.prediction_error->mape, 0.0123);
  EXPECT_EQ(again.prediction_error->bias, -0.004);
  EXPECT_EQ(again.prediction_error->worst, 0.031);
  EXPECT_EQ(again.prediction_error->scored_on, with.prediction_error->scored_on);
}

// The planner's CollectiveCost with the calibration as read back from the file reproduces every measured
// collective within the reported residual (and within 5 %).
TEST(CalibrationFit, PlannerWithTheFittedFileReproducesTheMeasuredCollectives) {
  const SyntheticMachine m = testing::titan_truth();
  const nlohmann::ordered_json j = testing::micro_benchmarks(m);
  const shardscope::Measurements measured = shardscope::parse_measurements(j.dump(), "synthetic.json");
  const fit::FitResult r = fit::fit_calibration({measured}, m.cluster);
  const Calibration cal = parse_calibration_string(fit::calibration_yaml(r.calibration, ""), "c.yaml");
  const double reported = quantity(r, "collectives (planner check)").residuals.max_relative;
  EXPECT_LT(reported, 0.05);
  double worst = 0;
  for (const shardscope::CollectiveSample& s : measured.collectives) {
    const fit::SampleRing ring = fit::sample_ring(m.cluster, s, measured.file);
    const double t =
        CollectiveCost(m.cluster, ring.group_size_argument, cal).seconds(s.op, ring.group, s.bytes);
    worst = std::max(worst, rel(t, s.time_seconds));
  }
  EXPECT_LE(worst, reported + 1e-12);
  EXPECT_EQ(quantity(r, "collectives (planner check)").point_count, measured.collectives.size());
}

// A reduce-scatter that reaches 0.6 of the class bandwidth on one class (as a CPU that reduces in memory):
// the fit recovers the factor, keeps the others at 1, and the written file reproduces every point.
TEST(CalibrationFit, RecoversAReduceScatterFactorOnOneClass) {
  SyntheticMachine m = testing::titan_truth();
  const auto same_switch = static_cast<std::size_t>(LinkClass::same_switch);
  m.truth.collective_efficiency[same_switch][static_cast<std::size_t>(CollectiveKind::reduce_scatter)] = 0.6;
  const fit::FitResult r = fit_of(m, testing::micro_benchmarks(m));
  for (LinkClass lc : {LinkClass::same_switch, LinkClass::cross_switch, LinkClass::cross_socket}) {
    const auto i = static_cast<std::size_t>(lc);
    EXPECT_LT(rel(r.calibration.links[i]->bytes_per_second, m.truth.links[i]->bytes_per_second), 0.03)
        << to_string(lc);
    for (CollectiveKind kind : values<CollectiveKind>()) {
      ASSERT_TRUE(r.calibration.collective_efficiency[i][static_cast<std::size_t>(kind)].has_value());
      EXPECT_LT(rel(collective_efficiency_factor(r.calibration, lc, kind),
                    collective_efficiency_factor(m.truth, lc, kind)),
                0.03)
          << to_string(lc) << " " << to_string(kind);
    }
  }
  const fit::QuantityFit& factor = quantity(r, "links.pcie-same-switch.collective_efficiency.reduce-scatter");
  EXPECT_TRUE(factor.written);
  EXPECT_EQ(factor.unit, "fraction");
  EXPECT_LT(quantity(r, "collectives (planner check)").residuals.max_relative, 0.05);
  const Calibration back = parse_calibration_string(fit::calibration_yaml(r.calibration, ""), "c.yaml");
  EXPECT_EQ(back.collective_efficiency, r.calibration.collective_efficiency);
}

TEST(CalibrationFit, ReportIsDeterministicAndNamesEveryQuantity) {
  const SyntheticMachine m = testing::titan_truth();
  const fit::FitResult a = fit_of(m, testing::micro_benchmarks(m));
  const fit::FitResult b = fit_of(m, testing::micro_benchmarks(m));
  EXPECT_EQ(fit::fit_report_json(a, {}).dump(), fit::fit_report_json(b, {}).dump());
  const auto j = fit::fit_report_json(a, {});
  EXPECT_EQ(j["quantities"][0]["quantity"], "links.pcie-same-switch.alpha");
  std::ostringstream text;
  fit::print_fit_table(a, {}, text);
  EXPECT_NE(text.str().find("achievable_fraction.mlp"), std::string::npos);
  EXPECT_NE(text.str().find("overlap_slowdown"), std::string::npos);
}

// Refusals: exit-2 errors that name the quantity and the points.
void expect_refused(const SyntheticMachine& m, const nlohmann::ordered_json& j, const std::string& field,
                    const std::string& words) {
  try {
    (void)fit_of(m, j);
    FAIL() << "fit accepted; expected a refusal on " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

nlohmann::ordered_json only_group(nlohmann::ordered_json j, const std::string& group, int size,
                                  int max_points) {
  nlohmann::ordered_json kept = nlohmann::ordered_json::array();
  for (const auto& c : j["collectives"])
    if (c["group"] == group && c["group_size"] == size && c["op"] == "all_reduce" &&
        static_cast<int>(kept.size()) < max_points)
      kept.push_back(c);
  j["collectives"] = kept;
  return j;
}

TEST(CalibrationFit, RefusesTooFewPoints) {
  const SyntheticMachine m = testing::titan_truth();
  expect_refused(m, only_group(testing::micro_benchmarks(m), "intra", 2, 3), "links.pcie-same-switch",
                 "too few points");
  expect_refused(m, only_group(testing::micro_benchmarks(m), "intra", 2, 3), "links.pcie-same-switch",
                 "synthetic.json: collectives[0-2]");
}

TEST(CalibrationFit, RefusesNegativeAlpha) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = only_group(testing::micro_benchmarks(m), "intra", 2, 100);
  // The smallest sizes on the line y = message x 1 ns/B - 1 ns per step (2 steps): it meets the axis below 0.
  for (std::size_t i = 0; i < 10; ++i) {
    const double message = j["collectives"][i]["bytes"].get<double>() / 2;
    j["collectives"][i]["time_seconds"] = 2 * (message * 1e-9 - 1e-9);
  }
  expect_refused(m, j, "links.pcie-same-switch.alpha", "negative alpha");
}

TEST(CalibrationFit, RefusesPointsThatDoNotFollowTheModel) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = only_group(testing::micro_benchmarks(m), "intra", 2, 100);
  // The largest sizes scrambled: time no longer grows in proportion to size.
  const std::size_t n = j["collectives"].size();
  for (std::size_t i = n - 9; i < n; ++i) j["collectives"][i]["time_seconds"] = (i % 2 == 0 ? 0.05 : 0.2);
  expect_refused(m, j, "links.pcie-same-switch.bandwidth", "the time falls from 0.2 s to 0.05 s");
}

TEST(CalibrationFit, RefusesAFractionAbovePeak) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = testing::micro_benchmarks(m);
  for (auto& g : j["gemms"]) g["time_seconds"] = g["time_seconds"].get<double>() / 3;  // 1.6x-2.1x the peak
  expect_refused(m, j, "achievable_fraction.attention", "outside (0, 1]");
}

TEST(CalibrationFit, RefusesAFractionJustAbovePeakWithTheDigitsThatShowIt) {
  SyntheticMachine m = testing::titan_truth();
  m.noise = 0;
  nlohmann::ordered_json j = testing::micro_benchmarks(m);
  // Every product 0.002 % faster than the peak allows: "%.4g" would call the fraction "1".
  for (auto& g : j["gemms"]) g["time_seconds"] = g["time_seconds"].get<double>() * 0.55 / 1.00002;
  expect_refused(m, j, "achievable_fraction.attention", "fitted fraction 1.00002 of the cluster's peak");
  expect_refused(m, j, "achievable_fraction.attention", "whose fastest product ran at");
}

TEST(CalibrationFit, RefusesMeasurementsOfAnotherMachine) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = testing::micro_benchmarks(m);
  j["machine"]["ranks"] = 16;
  expect_refused(m, j, "machine.ranks", "16 ranks measured");
}

TEST(CalibrationFit, RefusesAGroupTheClusterDoesNotHave) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = testing::micro_benchmarks(m);
  j["collectives"][0]["group_size"] = 3;
  expect_refused(m, j, "collectives[0].group_size", "do not divide");
}

// Every operation of the two-rank intra-switch groups.
nlohmann::ordered_json intra_pairs(nlohmann::ordered_json j) {
  nlohmann::ordered_json kept = nlohmann::ordered_json::array();
  for (const auto& c : j["collectives"])
    if (c["group"] == "intra" && c["group_size"] == 2) kept.push_back(c);
  j["collectives"] = kept;
  return j;
}

// A CPU reduces in memory, so its reduce-scatter is slower per byte than its all-gather: one bandwidth per
// link class cannot follow both, and each operation's own line is what is judged (and reported).
TEST(CalibrationFit, JudgesTheBandwidthPerOperationWhereOperationsDiffer) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = intra_pairs(testing::micro_benchmarks(m));
  for (auto& c : j["collectives"])
    if (c["op"] == "reduce_scatter") c["time_seconds"] = 3 * c["time_seconds"].get<double>();
  const fit::FitResult r = fit_of(m, j);
  const fit::QuantityFit& gather = quantity(r, "links.pcie-same-switch.bandwidth.all-gather");
  const fit::QuantityFit& scatter = quantity(r, "links.pcie-same-switch.bandwidth.reduce-scatter");
  EXPECT_FALSE(gather.written);
  EXPECT_FALSE(scatter.written);
  EXPECT_NEAR(gather.value / scatter.value, 3.0, 0.1);
  // The ratio is written as the reduce-scatter's factor; the fastest kind's is 1.
  const auto i = static_cast<std::size_t>(LinkClass::same_switch);
  EXPECT_NEAR(
      *r.calibration.collective_efficiency[i][static_cast<std::size_t>(CollectiveKind::reduce_scatter)],
      1.0 / 3, 0.01);
  EXPECT_TRUE(quantity(r, "links.pcie-same-switch.collective_efficiency.reduce-scatter").written);
  EXPECT_TRUE(quantity(r, "links.pcie-same-switch.bandwidth").written);
  ASSERT_TRUE(gather.r_squared.has_value());
  EXPECT_GE(*gather.r_squared, 0.9);
}

TEST(CalibrationFit, RefusesAnOperationWhoseTimeFallsAsMessagesGrow) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = intra_pairs(testing::micro_benchmarks(m));
  int k = 0;
  for (auto& c : j["collectives"])
    if (c["op"] == "reduce_scatter" && c["bytes"].get<double>() >= (1 << 22))
      c["time_seconds"] = (k++ % 2 == 0 ? 0.05 : 0.2);
  expect_refused(m, j, "links.pcie-same-switch.bandwidth", "collectives[");
}

// A cache makes the middle sizes faster than the largest (MPI on one machine): the bandwidth is the fastest
// rate, the largest sizes get an efficiency below 1, and the fitted file reproduces every size.
TEST(CalibrationFit, FitsARateThatFallsBeyondTheCache) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = intra_pairs(testing::micro_benchmarks(m));
  for (auto& c : j["collectives"])
    if (c["bytes"].get<double>() >= (1 << 26)) c["time_seconds"] = 2.5 * c["time_seconds"].get<double>();
  const fit::FitResult r = fit_of(m, j);
  const auto i = static_cast<std::size_t>(LinkClass::same_switch);
  const double truth = m.truth.links[i]->bytes_per_second;
  EXPECT_LT(rel(r.calibration.links[i]->bytes_per_second, truth), 0.05);
  EXPECT_LT(message_efficiency_factor(r.calibration, LinkClass::same_switch, 1 << 29), 0.5);
  const fit::QuantityFit& curve = quantity(r, "links.pcie-same-switch.message_efficiency");
  ASSERT_TRUE(curve.r_squared.has_value());
  EXPECT_GE(*curve.r_squared, 0.99);
}

// At the latency-bound sizes the line is flat, so its R^2 means nothing: the default accepts it on a small
// RMS residual (1 % noise here); asking for less than the noise refuses it, naming both numbers.
TEST(CalibrationFit, JudgesAFlatAlphaLineByItsResidual) {
  const SyntheticMachine m = testing::titan_truth();
  const nlohmann::ordered_json j = intra_pairs(testing::micro_benchmarks(m));
  const fit::FitResult r = fit_of(m, j);
  const fit::QuantityFit& alpha = quantity(r, "links.pcie-same-switch.alpha");
  EXPECT_LT(alpha.residuals.rms_relative, 0.02);
  fit::FitOptions strict;
  strict.max_alpha_rms = 0.001;
  try {
    (void)fit::fit_calibration({shardscope::parse_measurements(j.dump(), "synthetic.json")}, m.cluster,
                               strict);
    if (alpha.r_squared && *alpha.r_squared < strict.min_r_squared) FAIL() << "accepted below the residual";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "links.pcie-same-switch.alpha");
    EXPECT_NE(std::string(e.what()).find("RMS residual"), std::string::npos) << e.what();
  }
}

TEST(CalibrationFit, KeepsTheScenariosReserveWhenNoneWasMeasured) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = testing::micro_benchmarks(m);
  j["reserve_bytes"] = nullptr;  // the cpu backend: no runtime of its own to measure
  const fit::FitResult r = fit_of(m, j);
  EXPECT_FALSE(r.calibration.runtime_reserve_bytes.has_value());
  for (const fit::QuantityFit& q : r.quantities) EXPECT_NE(q.quantity, "runtime_reserve");
}

// One kind measured alone gets no factor: it would only trade places with the bandwidth.
TEST(CalibrationFit, OneKindAloneGetsNoFactor) {
  const SyntheticMachine m = testing::titan_truth();
  const fit::FitResult r = fit_of(m, only_group(testing::micro_benchmarks(m), "intra", 2, 100));
  for (const auto& kinds : r.calibration.collective_efficiency) {
    for (const auto& f : kinds) EXPECT_FALSE(f.has_value());
  }
  EXPECT_EQ(fit::calibration_yaml(r.calibration, "").find("collective_efficiency"), std::string::npos);
}

// Small products slower than the kind's rate: the fit writes the kind's size table, the factor at every
// measured size within 3 % of the truth and the fraction within 2 %; kinds at one rate get none.
TEST(CalibrationFit, RecoversAProductSizeTableWhereSmallProductsAreSlower) {
  SyntheticMachine m = testing::titan_truth();
  m.truth.gemm_efficiency[static_cast<std::size_t>(OperatorKind::attention)] = {
      {1e7, 0.3}, {1e9, 0.7}, {1e11, 1.0}};
  const fit::FitResult r = fit_of(m, testing::micro_benchmarks(m));
  const auto attention = static_cast<std::size_t>(OperatorKind::attention);
  ASSERT_FALSE(r.calibration.gemm_efficiency[attention].empty());
  EXPECT_TRUE(quantity(r, "gemm_efficiency.attention").written);
  for (const auto& [flops, factor] : r.calibration.gemm_efficiency[attention]) {
    EXPECT_LT(rel(factor, gemm_efficiency_factor(m.truth, OperatorKind::attention, flops)), 0.03) << flops;
  }
  EXPECT_LT(rel(*r.calibration.achievable_fraction[attention], 0.55), 0.02);
  for (OperatorKind k : {OperatorKind::mlp, OperatorKind::head}) {
    EXPECT_TRUE(r.calibration.gemm_efficiency[static_cast<std::size_t>(k)].empty()) << to_string(k);
    const fit::QuantityFit& q = quantity(r, "gemm_efficiency." + std::string(to_string(k)));
    EXPECT_FALSE(q.written);
    EXPECT_NE(q.note.find("not written"), std::string::npos) << q.note;
  }
  // The written file reads back to the same table, and the report has the fraction before the table.
  const Calibration back = parse_calibration_string(fit::calibration_yaml(r.calibration, "t"), "back.yaml");
  EXPECT_EQ(back.gemm_efficiency[attention], r.calibration.gemm_efficiency[attention]);
  std::size_t fraction_at = 0, table_at = 0;
  for (std::size_t i = 0; i < r.quantities.size(); ++i) {
    if (r.quantities[i].quantity == "achievable_fraction.attention") fraction_at = i;
    if (r.quantities[i].quantity == "gemm_efficiency.attention") table_at = i;
  }
  EXPECT_EQ(table_at, fraction_at + 1);
  // With the table every attention product is within 4 % (1 % noise); the note gives the fraction-only error.
  EXPECT_LT(quantity(r, "achievable_fraction.attention").residuals.max_relative, 0.04);
  EXPECT_NE(quantity(r, "gemm_efficiency.attention").note.find("one fraction: rms"), std::string::npos);
}

// Small products that beat the cluster's peak: a table would put the kind's fraction above 1, so the fit
// keeps one fraction for the kind and says why.
TEST(CalibrationFit, KeepsOneFractionWhereATableWouldPassThePeak) {
  const SyntheticMachine m = testing::titan_truth();
  nlohmann::ordered_json j = testing::micro_benchmarks(m);
  for (auto& g : j["gemms"]) {
    if (g["operator_kind"] == "head" && g["flops"].get<double>() < 1e9) {
      g["time_seconds"] = g["time_seconds"].get<double>() / 2;  // 1.4x the peak
    }
  }
  const fit::FitResult r = fit_of(m, j);
  EXPECT_TRUE(r.calibration.gemm_efficiency[static_cast<std::size_t>(OperatorKind::head)].empty());
  const fit::QuantityFit& q = quantity(r, "gemm_efficiency.head");
  EXPECT_FALSE(q.written);
  EXPECT_NE(q.note.find("outside (0, 1]"), std::string::npos) << q.note;
  EXPECT_LE(*r.calibration.achievable_fraction[static_cast<std::size_t>(OperatorKind::head)], 1.0);
}

}  // namespace
}  // namespace shardscope
