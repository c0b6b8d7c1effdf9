// Calibration files: coefficients are read, and negative or missing ones are errors naming the line.
#include <gtest/gtest.h>

#include "planner/cost/calibration.hpp"
#include "planner/error.hpp"

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

TEST(Calibration, NegativeCoefficientIsAnError) {
  try {
    parse_calibration_string("overlap_slowdown: -0.5\n", "cal.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.field(), "overlap_slowdown");
  }
  EXPECT_THROW(parse_calibration_string("links:\n  nvlink: {alpha: -4us, bandwidth: 1GB/s}\n", "cal.yaml"), InputError);
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

}  // namespace
}  // namespace shardscope
