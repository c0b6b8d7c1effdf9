// libFuzzer target for the measurements JSON reader (bench.json and run.json of shardscope-validate), its
// writer (what reads must write back and read again to the same values) and the ring arithmetic calibrate
// derives from its collective rows: InputError or success only.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "planner/core/error.hpp"
#include "validate/measurements/measurements.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const shardscope::Measurements m = shardscope::parse_measurements(text, "fuzz.json");
    for (const shardscope::CollectiveSample& c : m.collectives) {
      (void)shardscope::ring_message_bytes(c);
      (void)shardscope::sample_ring_steps(c);
    }
    const std::string written = shardscope::measurements_to_json(m).dump(2);
    if (!(shardscope::parse_measurements(written, "fuzz.json") == m)) std::abort();  // a lossy round trip
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  return 0;
}
