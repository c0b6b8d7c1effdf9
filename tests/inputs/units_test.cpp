// Tests of unit parsing and formatting: every suffix family, and rejection of junk, negatives and overflow.
#include "planner/core/units.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

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

// Token counts as users say them (Llama 3's 15T, a 300B run) and as format_count prints them.
TEST(Units, CountsWithTheirSuffixes) {
  EXPECT_DOUBLE_EQ(parse_count("15T"), 15e12);
  EXPECT_DOUBLE_EQ(parse_count("300B"), 300e9);
  EXPECT_DOUBLE_EQ(parse_count("2.5M"), 2.5e6);
  EXPECT_DOUBLE_EQ(parse_count("4K"), 4e3);
  EXPECT_DOUBLE_EQ(parse_count("1e12"), 1e12);
  EXPECT_DOUBLE_EQ(parse_count(format_count(300e9)), 300e9);  // "300.00 B"
  EXPECT_THROW(parse_count("3X"), std::invalid_argument);
  EXPECT_THROW(parse_count("-5B"), std::invalid_argument);
  EXPECT_THROW(parse_count(""), std::invalid_argument);
}

TEST(Units, RejectsJunkNegativeAndOverflow) {
  EXPECT_THROW(parse_bytes("lots"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("-1GB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("1e300GB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("10EB"), std::invalid_argument);  // over the 4 EiB limit
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

// Finding 13 of issue 9: a unit the tool prints (tables, limits in messages) is a unit it reads.
TEST(Units, EveryUnitTheToolPrintsParsesBack) {
  EXPECT_EQ(parse_bytes("2PiB"), std::int64_t{2} << 50);
  EXPECT_EQ(parse_bytes("1.5 PB"), 1500000000000000);
  EXPECT_EQ(parse_bytes("4EiB"), std::int64_t{1} << 62);  // the limit the error message names
  EXPECT_EQ(parse_bytes("1EB"), 1000000000000000000);
  EXPECT_EQ(parse_bytes("2.77 KiB"), 2836);  // as format_bytes prints 2836 bytes: rounded to a byte
  EXPECT_THROW(parse_bytes("2.5B"), std::invalid_argument);            // a count of bytes stays whole
  EXPECT_DOUBLE_EQ(parse_bandwidth_bytes_per_second("1 PB/s"), 1e15);  // the bandwidth limit's spelling
  EXPECT_DOUBLE_EQ(parse_bandwidth_bytes_per_second("2TiB/s"), 2.0 * 1099511627776.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bytes_per_second("8Pbps"), 1e15);
  EXPECT_DOUBLE_EQ(parse_flops_per_second("10 EFLOPS"), 1e19);  // the FLOP-rate limit's spelling
  EXPECT_DOUBLE_EQ(parse_flops_per_second("1.5EFLOP/s"), 1.5e18);
  for (double bytes = 1; bytes < 4e18; bytes *= 7.3) {
    const double back = static_cast<double>(parse_bytes(format_bytes(std::round(bytes))));
    EXPECT_NEAR(back, bytes, 0.005 * bytes + 0.5) << format_bytes(bytes);
  }
  for (double rate = 1; rate < 1e18; rate *= 7.3) {
    EXPECT_NEAR(parse_bandwidth_bytes_per_second(format_bandwidth(rate)), rate, 0.005 * rate) << rate;
    EXPECT_NEAR(parse_flops_per_second(format_flops_rate(rate)), rate, 0.05 * rate) << rate;
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

TEST(Units, FormatGeneralIsPrintfsG) {
  EXPECT_EQ(format_general(0.5), "0.5");
  EXPECT_EQ(format_general(4096), "4096");
  EXPECT_EQ(format_general(1e6), "1e+06");
  EXPECT_EQ(format_general(123.456789, 4), "123.5");
  // 17 significant digits read back as the same double.
  const double third = 1.0 / 3.0;
  EXPECT_EQ(std::stod(format_general(third, 17)), third);
}

}  // namespace shardscope::units
