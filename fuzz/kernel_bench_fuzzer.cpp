// libFuzzer target for the kernel measurement reader (validate/torch/kernels.py's JSON, calibrate --kernels):
// InputError or success only, for every micro-batch choice and attention back end.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/core/error.hpp"
#include "validate/fit/kernel_bench.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* attention : {"flash", "cudnn"}) {
    for (int micro_batch : {0, 1, 2}) {
      try {
        (void)shardscope::fit::parse_kernel_fits(text, "fuzz.json",
                                                 {.micro_batch = micro_batch,
                                                  .attention = attention,
                                                  .peak_flops_per_second = 989e12,
                                                  .gemm_half_rate_flops = 2.352e9});
      } catch (const shardscope::InputError&) {
        // expected for bad input
      }
    }
  }
  return 0;
}
