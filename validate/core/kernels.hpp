// The kernels a back end runs for a task (products and bandwidth-bound work), behind one interface: Eigen on
// cpu-mpi (validate/cpu/eigen_kernels.hpp), cuBLAS on cuda-nccl (validate/cuda/cublas_kernels.hpp).
#pragma once

#include <string>
#include <vector>

#include "validate/core/operator_work.hpp"

namespace shardscope::validate {

class Kernels {
 public:
  virtual ~Kernels() = default;

  // Scratch for a product or for `bytes` of element-wise or copy work, sized once so that nothing is
  // allocated while timed.
  virtual void reserve(const Gemm& gemm) = 0;
  virtual void reserve_bytes(double bytes) = 0;
  // C = A B, `batch` times (the matrices hold a fixed pattern, not data).
  virtual void gemm(const Gemm& gemm) = 0;
  // A triad y = a x + y (two reads, one write per element) over `bytes` of moved data.
  virtual void elementwise(double bytes) = 0;
  // A copy of bytes / 2 (read + write = bytes moved).
  virtual void copy(double bytes) = 0;
  // The element type of the products ("float32", "bfloat16"), as measurements record it.
  virtual std::string gemm_dtype() const = 0;

  // Sizes the scratch for every product and element-wise byte count in `work`.
  void reserve(const std::vector<KernelWork>& work);
  // Every product of `work`, then its element-wise bytes.
  void run(const KernelWork& work);
};

}  // namespace shardscope::validate
