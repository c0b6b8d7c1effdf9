// The cpu backend's kernels: Eigen single-precision products and bandwidth-bound loops over scratch buffers
// sized once for the largest shape (so no allocation is timed).
#pragma once

#include <vector>

#include "validate/core/kernels.hpp"

namespace shardscope::validate {

class EigenKernels : public Kernels {
 public:
  using Kernels::reserve;
  void reserve(const Gemm& gemm) override;
  void reserve_bytes(double bytes) override;
  // Single-precision matrices.
  void gemm(const Gemm& gemm) override;
  void elementwise(double bytes) override;
  // memcpy of bytes / 2.
  void copy(double bytes) override;
  std::string gemm_dtype() const override { return "float32"; }

 private:
  std::vector<float> a_, b_, c_, x_, y_;
};

}  // namespace shardscope::validate
