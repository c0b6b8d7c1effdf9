// Calibration files: coefficients are read, and negative or missing ones are errors naming the line.
#include "planner/core/calibration.hpp"

#include <gtest/gtest.h>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "tests/planner/calibration_errors.hpp"

namespace shardscope {
namespace {

constexpr auto error_of = test::calibration_error;

TEST(Calibration, ReadsEveryCoefficient) {
  const Calibration c = parse_calibration_string(
      "links:\n  nvlink: {alpha: 4us, bandwidth: 220GB/s}\nachievable_fraction: {mlp: 0.7, attention: 0.5}\n"
      "overlap_slowdown: 0.2\nslice_overhead: 15us\nruntime_reserve: 1GiB\n",
      "cal.yaml");
  ASSERT_TRUE(c.links[static_cast<std::size_t>(LinkClass::nvlink)].has_value());
  EXPECT_DOUBLE_EQ(c.links[static_cast<std::size_t>(LinkClass::nvlink)]->bytes_per_second, 220e9);
  EXPECT_DOUBLE_EQ(*c.achievable_fraction[static_cast<std::size_t>(OperatorKind::mlp)], 0.7);
  EXPECT_DOUBLE_EQ(c.overlap_slowdown, 0.2);
  EXPECT_DOUBLE_EQ(c.slice_overhead_seconds, 15e-6);
  EXPECT_DOUBLE_EQ(*c.runtime_reserve_bytes, 1073741824.0);
}

TEST(Calibration, MessageEfficiencyInterpolatesLogLinearly) {
  const Calibration c = parse_calibration_string(
      "message_efficiency:\n  - {bytes: 1KiB, factor: 0.2}\n  - {bytes: 1MiB, factor: 0.8}\n", "cal.yaml");
  EXPECT_DOUBLE_EQ(message_efficiency_factor(c, 10), 0.2);
  EXPECT_DOUBLE_EQ(message_efficiency_factor(c, 1 << 30), 0.8);
  EXPECT_NEAR(message_efficiency_factor(c, 32768), 0.5,
              1e-12);  // halfway in log2: 2^15 between 2^10 and 2^20
  EXPECT_DOUBLE_EQ(message_efficiency_factor(Calibration{}, 1e6), 1.0);
  try {
    parse_calibration_string(
        "message_efficiency:\n  - {bytes: 1MiB, factor: 0.8}\n  - {bytes: 1KiB, factor: 0.2}\n", "cal.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "message_efficiency[1].bytes");
    EXPECT_EQ(e.line(), 3);
  }
}

TEST(Calibration, NegativeCoefficientIsAnError) {
  try {
    parse_calibration_string("overlap_slowdown: -0.5\n", "cal.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.field(), "overlap_slowdown");
  }
  EXPECT_THROW(parse_calibration_string("links:\n  nvlink: {alpha: -4us, bandwidth: 1GB/s}\n", "cal.yaml"),
               InputError);
}

TEST(Calibration, MissingCoefficientIsAnError) {
  try {
    parse_calibration_string("links:\n  network:\n    alpha: 3us\n", "cal.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "links.network.bandwidth");
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
}

// Each link class may carry its own efficiency table; the top-level one stays the default for the rest.
TEST(Calibration, ALinkClassMayHaveItsOwnMessageEfficiency) {
  const Calibration c = parse_calibration_string(
      "links:\n"
      "  network:\n"
      "    alpha: 8us\n"
      "    bandwidth: 20GB/s\n"
      "    message_efficiency: [{bytes: 1KiB, factor: 0.1}, {bytes: 1MiB, factor: 0.4}]\n"
      "  nvlink: {message_efficiency: [{bytes: 1KiB, factor: 0.9}]}\n"
      "message_efficiency:\n  - {bytes: 1KiB, factor: 0.2}\n  - {bytes: 1MiB, factor: 0.8}\n",
      "cal.yaml");
  EXPECT_DOUBLE_EQ(message_efficiency_factor(c, LinkClass::network, 1 << 30), 0.4);
  EXPECT_DOUBLE_EQ(message_efficiency_factor(c, LinkClass::nvlink, 1 << 30), 0.9);
  EXPECT_DOUBLE_EQ(message_efficiency_factor(c, LinkClass::same_switch, 1 << 30), 0.8);  // the default
  EXPECT_DOUBLE_EQ(message_efficiency_factor(c, 1 << 30), 0.8);
  // A class with only a table keeps the cluster's alpha and bandwidth.
  EXPECT_FALSE(c.links[static_cast<std::size_t>(LinkClass::nvlink)].has_value());
  ASSERT_TRUE(c.links[static_cast<std::size_t>(LinkClass::network)].has_value());
  EXPECT_DOUBLE_EQ(c.links[static_cast<std::size_t>(LinkClass::network)]->bytes_per_second, 20e9);
}

TEST(Calibration, ALinkClassTableIsCheckedWithItsLine) {
  const std::string decreasing = error_of(
      "links:\n  network:\n    message_efficiency:\n      - {bytes: 1MiB, factor: 0.8}\n"
      "      - {bytes: 1KiB, factor: 0.2}\n");
  EXPECT_EQ(decreasing.rfind("5 links.network.message_efficiency[1].bytes: ", 0), 0u) << decreasing;
  const std::string factor =
      error_of("links:\n  nvlink:\n    message_efficiency: [{bytes: 1KiB, factor: 1.5}]\n");
  EXPECT_EQ(factor.rfind("3 links.nvlink.message_efficiency[0].factor: ", 0), 0u) << factor;
  const std::string empty = error_of("links:\n  nvlink:\n    message_efficiency: []\n");
  EXPECT_EQ(empty.rfind("3 links.nvlink.message_efficiency: ", 0), 0u) << empty;
  // alpha and bandwidth still come together
  const std::string alone =
      error_of("links:\n  nvlink:\n    alpha: 2us\n    message_efficiency: [{bytes: 1KiB, factor: 0.5}]\n");
  EXPECT_NE(alone.find("links.nvlink.bandwidth"), std::string::npos) << alone;
  const std::string unknown = error_of("links:\n  nvlink:\n    efficiency: [{bytes: 1KiB, factor: 0.5}]\n");
  EXPECT_EQ(unknown.rfind("3 links.nvlink.efficiency: ", 0), 0u) << unknown;
}

// `links.CLASS.collective_efficiency` gives a factor per collective kind on the class's bandwidth.
TEST(Calibration, ALinkClassMayHaveAFactorPerCollectiveKind) {
  const Calibration c = parse_calibration_string(
      "links:\n"
      "  nvlink:\n"
      "    alpha: 1us\n"
      "    bandwidth: 8GB/s\n"
      "    collective_efficiency: {reduce-scatter: 0.3, all-reduce: 0.45}\n"
      "  network: {collective_efficiency: {all-gather: 1}}\n",
      "cal.yaml");
  EXPECT_DOUBLE_EQ(collective_efficiency_factor(c, LinkClass::nvlink, CollectiveKind::reduce_scatter), 0.3);
  EXPECT_DOUBLE_EQ(collective_efficiency_factor(c, LinkClass::nvlink, CollectiveKind::all_reduce), 0.45);
  EXPECT_DOUBLE_EQ(collective_efficiency_factor(c, LinkClass::nvlink, CollectiveKind::all_gather), 1.0);
  EXPECT_DOUBLE_EQ(collective_efficiency_factor(c, LinkClass::network, CollectiveKind::all_gather), 1.0);
  EXPECT_DOUBLE_EQ(collective_efficiency_factor(c, LinkClass::same_switch, CollectiveKind::all_reduce), 1.0);
  ASSERT_TRUE(c.links[static_cast<std::size_t>(LinkClass::nvlink)].has_value());
  // A class with only factors keeps the cluster's alpha and bandwidth.
  EXPECT_FALSE(c.links[static_cast<std::size_t>(LinkClass::network)].has_value());
}

TEST(Calibration, ABadCollectiveFactorIsAnErrorNamingItsLine) {
  const auto factor_error = [](const std::string& factors) {
    try {
      parse_calibration_string(
          "links:\n  nvlink:\n    alpha: 1us\n    bandwidth: 8GB/s\n"
          "    collective_efficiency:\n" +
              factors,
          "cal.yaml");
    } catch (const InputError& e) {
      return e.file() + ":" + std::to_string(e.line()) + " " + e.field() + ": " + e.what();
    }
    return std::string("no error");
  };
  const std::string unknown = factor_error("      all-to-all: 0.5\n");
  EXPECT_EQ(unknown.rfind("cal.yaml:6 links.nvlink.collective_efficiency.all-to-all: ", 0), 0u) << unknown;
  const std::string zero = factor_error("      all-gather: 0.9\n      reduce-scatter: 0\n");
  EXPECT_EQ(zero.rfind("cal.yaml:7 links.nvlink.collective_efficiency.reduce-scatter: ", 0), 0u) << zero;
  EXPECT_NE(zero.find("above 0 and at most 1"), std::string::npos) << zero;
  const std::string negative = factor_error("      all-reduce: -0.5\n");
  EXPECT_NE(negative.find("collective_efficiency.all-reduce: "), std::string::npos) << negative;
  EXPECT_NE(negative.find("got -0.5"), std::string::npos) << negative;
  const std::string above = factor_error("      all-reduce: 1.5\n");
  EXPECT_EQ(above.rfind("cal.yaml:6 links.nvlink.collective_efficiency.all-reduce: ", 0), 0u) << above;
  EXPECT_NE(above.find("got 1.5"), std::string::npos) << above;
  const std::string text = factor_error("      all-gather: fast\n");
  EXPECT_EQ(text.rfind("cal.yaml:6 links.nvlink.collective_efficiency.all-gather: ", 0), 0u) << text;
  EXPECT_NE(text.find("expected a number"), std::string::npos) << text;
  const std::string list = factor_error("      - 0.5\n");
  EXPECT_NE(list.find("links.nvlink.collective_efficiency"), std::string::npos) << list;
  EXPECT_NE(list.find("expected a mapping"), std::string::npos) << list;
}

// prediction_error: read with its rows and errors, each bad field named with its line; it changes no
// prediction, so not the digest either.
TEST(Calibration, APredictionErrorIsReadCheckedAndLeftOutOfTheDigest) {
  const std::string good =
      "prediction_error:\n  rows: 3\n  mape: 0.03\n  bias: -0.01\n  worst: 0.05\n  scored_on: \"held-out "
      "rows\"\n";
  const Calibration c = parse_calibration_string("overlap_slowdown: 0.1\n" + good, "cal.yaml");
  ASSERT_TRUE(c.prediction_error.has_value());
  EXPECT_EQ(c.prediction_error->rows, 3);
  EXPECT_DOUBLE_EQ(c.prediction_error->bias, -0.01);
  EXPECT_EQ(c.prediction_error->scored_on, "held-out rows");
  EXPECT_EQ(calibration_digest(c),
            calibration_digest(parse_calibration_string("overlap_slowdown: 0.1\n", "c")));
  const std::string fields = "prediction_error:\n  rows: 3\n  mape: 0.03\n  bias: 0\n  scored_on: x\n";
  EXPECT_EQ(error_of(fields + "  worst: 0.01\n").rfind("6 prediction_error.worst: ", 0), 0u)
      << error_of(fields + "  worst: 0.01\n");  // below the mean
  EXPECT_EQ(error_of(fields + "  worst: 0.1\n  seed: 1\n").rfind("7 prediction_error.seed: ", 0), 0u);
  EXPECT_EQ(error_of("prediction_error:\n  rows: 0\n  mape: 0.03\n  bias: 0\n  worst: 0.1\n  scored_on: x\n")
                .rfind("2 prediction_error.rows: ", 0),
            0u);
  EXPECT_EQ(error_of("prediction_error:\n  rows: 2\n  mape: 0.03\n  bias: 0\n  worst: 0.1\n")
                .rfind("2 prediction_error.scored_on: ", 0),
            0u)
      << error_of("prediction_error:\n  rows: 2\n  mape: 0.03\n  bias: 0\n  worst: 0.1\n");
  EXPECT_EQ(error_of("prediction_error: 3\n").rfind("1 prediction_error: ", 0), 0u)
      << error_of("prediction_error: 3\n");
  // Its pairs: both or neither, each in range.
  const std::string whole = fields + "  worst: 0.1\n";
  const Calibration paired = parse_calibration_string(whole + "  pairs: 28\n  pair_sd: 0.016\n", "cal.yaml");
  EXPECT_EQ(paired.prediction_error->pairs, 28);
  EXPECT_DOUBLE_EQ(paired.prediction_error->pair_sd, 0.016);
  EXPECT_EQ(error_of(whole + "  pairs: 28\n").rfind("7 prediction_error.pairs: ", 0), 0u)
      << error_of(whole + "  pairs: 28\n");
  EXPECT_EQ(error_of(whole + "  pair_sd: 0.1\n").rfind("7 prediction_error.pair_sd: ", 0), 0u)
      << error_of(whole + "  pair_sd: 0.1\n");
  EXPECT_EQ(error_of(whole + "  pairs: 0\n  pair_sd: 0.1\n").rfind("7 prediction_error.pairs: ", 0), 0u);
  EXPECT_EQ(error_of(whole + "  pairs: 3\n  pair_sd: -1\n").rfind("8 prediction_error.pair_sd: ", 0), 0u);
}

// A file without the factors has the digest it had before they existed; a factor changes it.
TEST(Calibration, CollectiveFactorsEnterTheDigestOnlyWhenGiven) {
  const std::string plain = "links:\n  nvlink: {alpha: 1us, bandwidth: 8GB/s}\n";
  const Calibration without = parse_calibration_string(plain, "cal.yaml");
  Calibration expected;
  expected.links[static_cast<std::size_t>(LinkClass::nvlink)] = LinkCalibration{1e-6, 8e9};
  EXPECT_EQ(calibration_digest(without), calibration_digest(expected));
  const Calibration with = parse_calibration_string(
      "links:\n  nvlink: {alpha: 1us, bandwidth: 8GB/s, collective_efficiency: {reduce-scatter: 0.5}}\n",
      "cal.yaml");
  EXPECT_NE(calibration_digest(with), calibration_digest(without));
  const Calibration other = parse_calibration_string(
      "links:\n  nvlink: {alpha: 1us, bandwidth: 8GB/s, collective_efficiency: {all-reduce: 0.5}}\n",
      "cal.yaml");
  EXPECT_NE(calibration_digest(with), calibration_digest(other));
}

}  // namespace
}  // namespace shardscope
