// kernels.py's JSON (validate/torch/kernels.py) read as a GPU's kernel efficiencies at one micro-batch, so
// that a step can be priced from the kernels measured on the GPU that ran it.
#pragma once

#include <string>

#include "planner/core/runtime_profile.hpp"

namespace shardscope::fit {

// The efficiencies kernels.py measured at `micro_batch`: gemm_fraction the bf16 products' FLOP-weighted
// share of the peak the file divided by, with gemm_half_rate_flops 0 (the share at the sizes measured, a
// block's and the head's); attention's forward and backward shares for `backend` (flash | cudnn |
// efficient) with key/value heads repeated, as step.py runs them. The element-wise share is not measured as
// the cost model uses it (kept bytes per pass) and is `elementwise_fraction`. Throws InputError naming the
// file and field for a micro-batch or back end the file does not have, or one it skipped.
KernelEfficiency measured_kernel_efficiency(const std::string& path, int micro_batch,
                                            const std::string& backend, double elementwise_fraction);

}  // namespace shardscope::fit
