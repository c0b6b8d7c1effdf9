// The cpu backend's kernels: Eigen single-precision products and bandwidth-bound loops over scratch buffers
// sized once for the largest shape (so no allocation is timed).
#pragma once

#include <vector>

#include "validate/core/operator_work.hpp"

namespace shardscope::validate {

class EigenKernels {
 public:
  // Sizes the scratch for every product and element-wise byte count in `work`.
  void reserve(const std::vector<KernelWork>& work);
  void reserve(const Gemm& gemm);
  void reserve_bytes(double bytes);

  // C = A B, `batch` times, on single-precision matrices (contents are a fixed pattern, not data).
  void gemm(const Gemm& gemm);
  // A triad y = a x + y (two reads, one write per element) over `bytes` of moved data.
  void elementwise(double bytes);
  // memcpy of bytes / 2 (read + write = bytes moved).
  void copy(double bytes);
  void run(const KernelWork& work);

 private:
  std::vector<float> a_, b_, c_, x_, y_;
};

}  // namespace shardscope::validate
