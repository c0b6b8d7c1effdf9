// The kernel micro-benchmark loops over sizes, whichever kernels and clock a back end brings.
#include "validate/core/kernel_bench.hpp"

namespace shardscope::validate {

std::vector<GemmSample> bench_kernel_gemms(Kernels& kernels, const std::vector<Gemm>& gemms,
                                           const KernelTimer& time) {
  std::vector<GemmSample> out;
  for (const Gemm& g : gemms) {
    kernels.reserve(g);
    out.push_back(g.sample(kernels.gemm_dtype(), time([&] { kernels.gemm(g); })));
  }
  return out;
}

std::vector<BandwidthSample> bench_kernel_elementwise(Kernels& kernels, double first_bytes, double last_bytes,
                                                      const KernelTimer& time) {
  std::vector<BandwidthSample> out;
  for (double bytes = first_bytes; bytes <= last_bytes; bytes *= 4) {
    kernels.reserve_bytes(bytes);
    out.push_back({"", bytes, time([&] { kernels.elementwise(bytes); })});
  }
  return out;
}

std::vector<BandwidthSample> bench_kernel_copies(Kernels& kernels, double first_bytes, double last_bytes,
                                                 const KernelTimer& time) {
  std::vector<BandwidthSample> out;
  for (double bytes = first_bytes; bytes <= last_bytes; bytes *= 4) {
    kernels.reserve_bytes(bytes);
    out.push_back({"device_to_device", bytes, time([&] { kernels.copy(bytes); })});
  }
  return out;
}

}  // namespace shardscope::validate
