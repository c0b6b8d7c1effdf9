// libFuzzer target for the PyTorch profiler trace reader (calibrate --torch-trace): InputError or success
// only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/error.hpp"
#include "validate/fit/torch_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    shardscope::fit::TraceSummary summary;
    (void)shardscope::fit::parse_torch_trace(text, "fuzz.json", &summary);
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  return 0;
}
