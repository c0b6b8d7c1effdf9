// The error a calibration text gives, as the calibration tests compare it: "LINE FIELD: message".
#pragma once

#include <string>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"

namespace shardscope::test {

// "LINE FIELD: message" of the InputError that parsing `text` (as cal.yaml) throws, or "no error".
inline std::string calibration_error(const std::string& text) {
  try {
    parse_calibration_string(text, "cal.yaml");
  } catch (const InputError& e) {
    return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
  }
  return "no error";
}

}  // namespace shardscope::test
