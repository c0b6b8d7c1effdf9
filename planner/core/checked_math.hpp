// Checked 64-bit integer arithmetic for sums and products of sizes: overflow is reported, never wrapped.
#pragma once

#include <cstdint>
#include <optional>

namespace shardscope {

// a + b, or nullopt when the sum does not fit std::int64_t.
inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

// a * b, or nullopt when the product does not fit std::int64_t.
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

}  // namespace shardscope
