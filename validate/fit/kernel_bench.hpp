// kernels.py's JSON (validate/torch/kernels.py) read as a calibration's kernel fits at one micro-batch, so
// that a step is priced from the kernels measured on the GPU that ran it (`calibrate --kernels`).
#pragma once

#include <string>

#include "planner/core/calibration.hpp"

namespace shardscope::fit {

struct KernelBenchOptions {
  int micro_batch = 0;               // 0: the file's largest
  std::string attention = "flash";   // flash | cudnn | efficient: the SDPA back end the runtime runs
  double peak_flops_per_second = 0;  // the cluster's peak the fractions are of (> 0)
  double gemm_half_rate_flops = 0;   // the cluster's (its gpu.kernels), kept by the fit
};

// The measured file's efficiencies as `runtime:` fits: gemm_fraction such that every bf16 product of the
// block and the head, priced at gemm_fraction x F / (F + gemm_half_rate_flops) of the peak, takes the time
// measured in all; attention's forward and backward fractions of the causal FLOPs for the back end, with
// key/value heads repeated as step.py runs them. Host costs, the half-rate size and the element-wise share
// are left unset (the cluster's and the profile's stay). Throws InputError naming the file and field for a
// micro-batch or back end the file does not have, or one it skipped.
RuntimeCalibration measured_kernel_fits(const std::string& path, const KernelBenchOptions& options);
// The same from the file's text (`file` names it in errors).
RuntimeCalibration parse_kernel_fits(const std::string& text, const std::string& file,
                                     const KernelBenchOptions& options);

}  // namespace shardscope::fit
