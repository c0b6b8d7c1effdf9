// libFuzzer target for the PyTorch reference step reader (validate/torch/step.py's JSON): InputError or
// success only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/error.hpp"
#include "validate/fit/torch_step.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)shardscope::fit::parse_torch_step(text, "fuzz.json");
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  return 0;
}
