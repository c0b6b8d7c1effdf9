// libFuzzer target for the Hugging Face config.json import (followed by model generation).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "planner/core/error.hpp"
#include "planner/io/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const shardscope::TransformerSpec spec = shardscope::parse_hf_config_string(text, "fuzz.json", 128);
    (void)shardscope::generate_transformer(spec);
  } catch (const shardscope::InputError&) {
    // expected for bad input
  } catch (const std::invalid_argument&) {
    // generate_transformer's documented error for inconsistent shapes (the scenario parser wraps it)
  }
  return 0;
}
