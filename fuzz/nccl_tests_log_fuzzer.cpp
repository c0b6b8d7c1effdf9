// libFuzzer target for the nccl-tests log reader (calibrate --nccl-tests) and the ring arithmetic calibrate
// derives from its rows: InputError or success only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/error.hpp"
#include "validate/fit/nccl_tests_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const shardscope::Measurements m = shardscope::fit::parse_nccl_tests_log(text, "fuzz.log");
    for (const shardscope::CollectiveSample& c : m.collectives) {
      (void)shardscope::ring_message_bytes(c);
      (void)shardscope::sample_ring_steps(c);
    }
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  return 0;
}
