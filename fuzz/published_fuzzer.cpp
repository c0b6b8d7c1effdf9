// libFuzzer target for the published-measurements reader (validate/published/*.yaml) and the scenario text it
// writes per row: InputError or success only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/error.hpp"
#include "validate/fit/published.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const shardscope::fit::PublishedTable table = shardscope::fit::parse_published_string(text, "fuzz.yaml");
    for (const shardscope::fit::PublishedRow& row : table.rows) {
      (void)shardscope::fit::row_sequence_tokens(row);
      (void)shardscope::fit::published_scenario_text(table, row);
    }
  } catch (const shardscope::InputError&) {
    // expected for bad input
  }
  return 0;
}
