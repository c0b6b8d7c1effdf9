// Calibration files: coefficients are read, and negative or missing ones are errors naming the line.
#include "planner/core/calibration.hpp"

#include <gtest/gtest.h>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"

namespace shardscope {
namespace {

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
  const auto error_of = [](const std::string& text) {
    try {
      parse_calibration_string(text, "cal.yaml");
    } catch (const InputError& e) {
      return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
    }
    return std::string("no error");
  };
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

}  // namespace
}  // namespace shardscope
