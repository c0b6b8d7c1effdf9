// CLI11 checks for option values with the scenario files' ranges: non-empty paths and byte sizes in a range,
// so a bad flag exits 2 naming the flag instead of being ignored or blamed on the scenario file.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "planner/core/units.hpp"

namespace shardscope::cli {

// A value that must not be empty, e.g. `--out ''`, which would otherwise write nothing and say nothing.
inline CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        return value.empty() ? "expected " + what + ", got an empty value" : "";
      },
      "");
}

// A byte size with an optional unit (25MB, 1GiB, 1024) from 0 to `high_bytes` (written `high_text`).
inline CLI::Validator byte_size_up_to(std::int64_t high_bytes, const std::string& high_text) {
  return CLI::Validator(
      [high_bytes, high_text](std::string& value) -> std::string {
        try {
          const std::int64_t bytes = units::parse_bytes(value);
          if (bytes >= 0 && bytes <= high_bytes) return "";
        } catch (const std::invalid_argument&) {
          // reported below, with the range
        }
        return "expected a byte size from 0 to " + high_text + " such as 25MB or 1024, got '" + value + "'";
      },
      "SIZE");
}

}  // namespace shardscope::cli
