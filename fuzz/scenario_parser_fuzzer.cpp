// libFuzzer target for the scenario parser: any input must parse or raise InputError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // base_dir points nowhere useful: hf_config paths must fail cleanly too.
    (void)shardscope::parse_scenario_string(text, "fuzz.yaml", "/nonexistent");
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  // Any other exception escapes and libFuzzer reports it as a crash.
  return 0;
}
