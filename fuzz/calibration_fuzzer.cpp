// libFuzzer target for the calibration file parser and the efficiency lookups (default and per link class,
// per collective kind): InputError or success only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/calibration.hpp"
#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const shardscope::Calibration c = shardscope::parse_calibration_string(text, "fuzz.yaml");
    for (double bytes : {1.0, 4096.0, 1e6, 1e9, 1e15}) {
      (void)shardscope::message_efficiency_factor(c, bytes);
      for (shardscope::LinkClass lc : shardscope::values<shardscope::LinkClass>()) {
        (void)shardscope::message_efficiency_factor(c, lc, bytes);  // a class's own table or the default
      }
    }
    for (shardscope::LinkClass lc : shardscope::values<shardscope::LinkClass>()) {
      for (shardscope::CollectiveKind kind : shardscope::values<shardscope::CollectiveKind>()) {
        (void)shardscope::collective_efficiency_factor(c, lc, kind);  // a class's factor per kind, or 1
      }
    }
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  return 0;
}
