// Unit-suffixed quantities: parsing "16GiB", "100Gbps", "2us", "125TFLOPS" and printing them back.
#include "planner/core/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace shardscope::units {
namespace {

struct Suffix {
  const char* text;
  double factor;
};

std::string trim(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// Splits "12.5GB/s" into 12.5 and "GB/s"; throws if there is no leading number.
double split_number(const std::string& text, std::string& suffix, const char* expected) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  double value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) {
    throw std::invalid_argument("number out of range in '" + text + "'; expected " + expected);
  }
  if (ec != std::errc() || ptr == first) {
    throw std::invalid_argument("expected " + std::string(expected) + ", got '" + text + "'");
  }
  if (!std::isfinite(value)) {
    throw std::invalid_argument("expected a finite number in " + std::string(expected) + ", got '" + text +
                                "'");
  }
  suffix = trim(std::string_view(ptr, static_cast<std::size_t>(last - ptr)));
  return value;
}

double parse_with(std::string_view raw, const Suffix* suffixes, std::size_t count, const char* expected,
                  bool allow_bare) {
  const std::string text = trim(raw);
  if (text.empty()) throw std::invalid_argument(std::string("expected ") + expected + ", got an empty value");
  std::string suffix;
  const double value = split_number(text, suffix, expected);
  if (value < 0)
    throw std::invalid_argument(std::string("expected ") + expected + " that is not negative, got '" + text +
                                "'");
  if (suffix.empty()) {
    if (!allow_bare) {
      throw std::invalid_argument(std::string("missing unit in '") + text + "'; expected " + expected);
    }
    return value;
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (suffix == suffixes[i].text) {
      const double result = value * suffixes[i].factor;
      if (!std::isfinite(result)) throw std::invalid_argument("value out of range: '" + text + "'");
      return result;
    }
  }
  throw std::invalid_argument("unknown unit '" + suffix + "' in '" + text + "'; expected " + expected);
}

constexpr Suffix kByteSuffixes[] = {
    {"B", 1},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
    {"EB", 1e18},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0},
    {"EiB", 1152921504606846976.0},
};
constexpr Suffix kBandwidthSuffixes[] = {
    {"B/s", 1},
    {"KB/s", 1e3},
    {"MB/s", 1e6},
    {"GB/s", 1e9},
    {"TB/s", 1e12},
    {"PB/s", 1e15},
    {"EB/s", 1e18},
    {"KiB/s", 1024.0},
    {"MiB/s", 1048576.0},
    {"GiB/s", 1073741824.0},
    {"TiB/s", 1099511627776.0},
    {"PiB/s", 1125899906842624.0},
    {"bps", 0.125},
    {"Kbps", 125.0},
    {"Mbps", 1.25e5},
    {"Gbps", 1.25e8},
    {"Tbps", 1.25e11},
    {"Pbps", 1.25e14},
    {"b/s", 0.125},
    {"Kb/s", 125.0},
    {"Mb/s", 1.25e5},
    {"Gb/s", 1.25e8},
    {"Tb/s", 1.25e11},
    {"Pb/s", 1.25e14},
};
constexpr Suffix kDurationSuffixes[] = {
    {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12},
};
constexpr Suffix kFlopsSuffixes[] = {
    {"FLOPS", 1},     {"KFLOPS", 1e3},   {"MFLOPS", 1e6},   {"GFLOPS", 1e9},   {"TFLOPS", 1e12},
    {"PFLOPS", 1e15}, {"EFLOPS", 1e18},  {"FLOP/s", 1},     {"KFLOP/s", 1e3},  {"MFLOP/s", 1e6},
    {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}, {"EFLOP/s", 1e18},
};

constexpr Suffix kCountSuffixes[] = {
    {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}, {"P", 1e15},
};

template <std::size_t N>
constexpr std::size_t count_of(const Suffix (&)[N]) {
  return N;
}

std::string printf_string(const char* format, double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value, unit);
  return buffer;
}

}  // namespace

std::int64_t parse_bytes(std::string_view text) {
  const double value = parse_with(text, kByteSuffixes, count_of(kByteSuffixes),
                                  "a byte size such as 16GiB, 512MB or 1024", true);
  // 2^62 bytes (4 EiB) is far beyond any device and keeps sums of many operators in range.
  if (value > 4.611686018427388e18) {
    throw std::invalid_argument("byte size '" + trim(text) + "' is absurdly large (limit 4 EiB)");
  }
  // A count of bytes ("1024", "12B") must be whole; a size in a larger unit rounds to the nearest byte, so
  // that what format_bytes prints ("2.77 KiB") reads back.
  const std::string trimmed = trim(text);
  const bool in_bytes =
      !trimmed.empty() &&
      (std::isdigit(static_cast<unsigned char>(trimmed.back())) != 0 || trimmed.back() == '.' ||
       (trimmed.back() == 'B' && trimmed.size() > 1 &&
        !std::isalpha(static_cast<unsigned char>(trimmed[trimmed.size() - 2]))));
  const double rounded = std::round(value);
  if (in_bytes && std::fabs(rounded - value) > 1e-6 * std::max(1.0, value)) {
    throw std::invalid_argument("byte size '" + trimmed + "' is not a whole number of bytes");
  }
  return static_cast<std::int64_t>(rounded);
}

double parse_bandwidth_bytes_per_second(std::string_view text) {
  return parse_with(text, kBandwidthSuffixes, count_of(kBandwidthSuffixes),
                    "a bandwidth such as 100Gbps or 12.5GB/s", false);
}

double parse_duration_seconds(std::string_view text) {
  return parse_with(text, kDurationSuffixes, count_of(kDurationSuffixes), "a duration such as 2us or 1.5ms",
                    false);
}

double parse_flops_per_second(std::string_view text) {
  return parse_with(text, kFlopsSuffixes, count_of(kFlopsSuffixes), "a FLOP rate such as 125TFLOPS", false);
}

double parse_count(std::string_view text) {
  return parse_with(text, kCountSuffixes, count_of(kCountSuffixes), "a count such as 15T, 300B or 1e12",
                    true);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024.0 && i < 5) {
    v /= 1024.0;
    ++i;
  }
  return i == 0 ? printf_string("%.0f %s", v, units[i]) : printf_string("%.2f %s", v, units[i]);
}

std::string format_bandwidth(double bytes_per_second) {
  const char* units[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  int i = 0;
  double v = bytes_per_second;
  while (std::fabs(v) >= 1000.0 && i < 4) {
    v /= 1000.0;
    ++i;
  }
  return printf_string("%.2f %s", v, units[i]);
}

std::string format_duration(double seconds) {
  const double a = std::fabs(seconds);
  if (a >= 1.0 || a == 0.0) return printf_string("%.3f %s", seconds, "s");
  if (a >= 1e-3) return printf_string("%.3f %s", seconds * 1e3, "ms");
  if (a >= 1e-6) return printf_string("%.3f %s", seconds * 1e6, "us");
  return printf_string("%.3f %s", seconds * 1e9, "ns");
}

std::string format_flops_rate(double flops_per_second) {
  const char* units[] = {"FLOP/s", "KFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"};
  int i = 0;
  double v = flops_per_second;
  while (std::fabs(v) >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  return printf_string("%.1f %s", v, units[i]);
}

std::string format_general(double value, int significant_digits) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", significant_digits, value);
  return text;
}

std::string format_count(double count) {
  const char* units[] = {"", " K", " M", " B", " T", " P"};
  int i = 0;
  double v = count;
  while (std::fabs(v) >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  return i == 0 ? printf_string("%.0f%s", v, units[i]) : printf_string("%.2f%s", v, units[i]);
}

}  // namespace shardscope::units
