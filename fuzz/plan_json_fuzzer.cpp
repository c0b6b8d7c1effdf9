// libFuzzer target for plan files (the simulator's input), checked against a small generated model.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/error.hpp"
#include "planner/core/transformer.hpp"
#include "planner/report/plan_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const shardscope::Model model = [] {
    shardscope::TransformerSpec spec;
    spec.layers = 1;
    spec.hidden = 64;
    spec.heads = 4;
    spec.vocab = 100;
    spec.sequence_length = 16;
    return shardscope::generate_transformer(spec);
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)shardscope::plan_from_json_string(text, "fuzz.json", model);
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  return 0;
}
