// The kernel micro-benchmarks both back ends run (the scenario's products, element-wise and copy bandwidth),
// over any Kernels and the back end's clock.
#pragma once

#include <functional>
#include <vector>

#include "validate/core/kernels.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

// Seconds per call of `body`, timed the back end's way (warm-up first; every rank at once, mean over ranks).
using KernelTimer = std::function<double(const std::function<void()>& body)>;

// Each product once reserved, then timed (dtype: the kernels' own).
std::vector<GemmSample> bench_kernel_gemms(Kernels& kernels, const std::vector<Gemm>& gemms,
                                           const KernelTimer& time);
// The element-wise triad and the device-to-device copy over first_bytes .. last_bytes moved (x4).
std::vector<BandwidthSample> bench_kernel_elementwise(Kernels& kernels, double first_bytes, double last_bytes,
                                                      const KernelTimer& time);
std::vector<BandwidthSample> bench_kernel_copies(Kernels& kernels, double first_bytes, double last_bytes,
                                                 const KernelTimer& time);

}  // namespace shardscope::validate
