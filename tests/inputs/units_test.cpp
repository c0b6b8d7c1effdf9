// Tests of unit parsing and formatting: every suffix family, and rejection of junk, negatives and overflow.
#include "planner/core/units.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace shardscope::units {

TEST(Units, BytesDecimalAndBinary) {
  EXPECT_EQ(parse_bytes("16GiB"), 17179869184);
  EXPECT_EQ(parse_bytes("8GB"), 8000000000);
  EXPECT_EQ(parse_bytes("512MiB"), 536870912);
  EXPECT_EQ(parse_bytes("1024"), 1024);
  EXPECT_EQ(parse_bytes("1.5KiB"), 1536);
  EXPECT_EQ(parse_bytes(" 2 TB "), 2000000000000);
}

TEST(Units, BandwidthBitsAndBytes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth_bytes_per_second("100Gbps"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bytes_per_second("12.5GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bytes_per_second("200Gb/s"), 25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bytes_per_second("600GB/s"), 600e9);
}

TEST(Units, DurationsAndFlops) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2us"), 2e-6);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("10ns"), 1e-8);
  EXPECT_DOUBLE_EQ(parse_flops_per_second("125TFLOPS"), 125e12);
  EXPECT_DOUBLE_EQ(parse_flops_per_second("19.5TFLOP/s"), 19.5e12);
}

TEST(Units, RejectsJunkNegativeAndOverflow) {
  EXPECT_THROW(parse_bytes("lots"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("-1GB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("1e300GB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("10EB"), std::invalid_argument);  // unknown unit
  EXPECT_THROW(parse_bytes("0.5"), std::invalid_argument);   // not whole bytes
  EXPECT_THROW(parse_bytes(""), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth_bytes_per_second("100"), std::invalid_argument);  // unit required
  EXPECT_THROW(parse_bandwidth_bytes_per_second("nanGbps"), std::invalid_argument);
  EXPECT_THROW(parse_duration_seconds("2 fortnights"), std::invalid_argument);
  EXPECT_THROW(parse_flops_per_second("infTFLOPS"), std::invalid_argument);
  try {
    parse_bytes("16Gib");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected a byte size"), std::string::npos) << e.what();
  }
}

TEST(Units, Formatting) {
  EXPECT_EQ(format_bytes(17179869184.0), "16.00 GiB");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bandwidth(12.5e9), "12.50 GB/s");
  EXPECT_EQ(format_duration(3.2e-3), "3.200 ms");
  EXPECT_EQ(format_flops_rate(125e12), "125.0 TFLOP/s");
  EXPECT_EQ(format_count(6738415616.0), "6.74 B");
}

}  // namespace shardscope::units
