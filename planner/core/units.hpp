// Parsing and printing of quantities with unit suffixes: bytes, bandwidth, durations, FLOP rates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shardscope::units {

// Each parser accepts a number followed by an optional unit suffix and returns the value in SI base
// units (bytes, bytes per second, seconds, FLOP per second). On bad text it throws
// std::invalid_argument whose what() says what was expected (callers wrap it into InputError).
//
// bytes:      "16GiB", "8GB", "512MiB", "1024", "1.5KiB"  (B, KB/MB/GB/TB/PB/EB = 10^3..,
//             KiB/MiB/GiB/TiB/PiB/EiB = 2^10..)
// bandwidth:  "100Gbps", "12.5GB/s", "600GB/s", "25Gb/s", "1PB/s" (bps = bits per second; B/s = bytes per
//             second; K..P decimal, KiB/s..PiB/s binary)
// duration:   "2us", "1.5ms", "10ns", "0.3s"
// flops rate: "125TFLOPS", "312TFLOP/s", "19.5TFLOPS", "10EFLOPS"
// count:      "15T", "300B", "2.5M", "4K", "1e12" (K, M, B = 10^9, T = 10^12, P: how token counts are said)
// A byte size in a unit above bytes rounds to the nearest byte ("2.77 KiB" is 2836); a plain count of
// bytes must be whole. Every unit the format_* functions and the error messages print ("1.50 PiB", "1 PB/s",
// "10 EFLOPS") parses back, with or without the space.
std::int64_t parse_bytes(std::string_view text);
double parse_bandwidth_bytes_per_second(std::string_view text);
double parse_duration_seconds(std::string_view text);
double parse_flops_per_second(std::string_view text);
double parse_count(std::string_view text);

// Human-readable forms used in tables ("15.50 GiB", "12.50 GB/s", "3.20 ms", "125.0 TFLOP/s").
std::string format_bytes(double bytes);
std::string format_bandwidth(double bytes_per_second);
std::string format_duration(double seconds);
std::string format_flops_rate(double flops_per_second);
std::string format_count(double count);
// printf's %g with `significant_digits` (17: the double read back exactly): "0.5", "1e+06", "4096".
std::string format_general(double value, int significant_digits = 6);  // "6.74 B", "124.4 M"

}  // namespace shardscope::units
