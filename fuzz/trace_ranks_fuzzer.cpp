// libFuzzer target for `simulate --trace-ranks SPEC`: the syntax check and the resolution against a cluster
// whose size comes from the input's first bytes agree, and a refusal is only ever std::invalid_argument.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "exchange/trace_ranks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int gpus = 1 + data[0] * 16;           // 1 .. 4081 GPUs
  const int gpus_per_node = 1 + data[1] % 16;  // 1 .. 16 a node
  const std::string spec(reinterpret_cast<const char*>(data + 2), size - 2);
  const bool well_formed = !shardscope::sim::trace_ranks_syntax_error(spec).has_value();
  try {
    const auto kept = shardscope::sim::traced_ranks(spec, gpus, gpus_per_node);
    if (!well_formed || kept.size() != static_cast<std::size_t>(gpus)) std::abort();  // must have refused
  } catch (const std::invalid_argument&) {
    // a malformed spec, or a rank or node count this cluster does not have
  }
  return 0;
}
