// The cuda-nccl backend's kernels, all from cuBLAS and the runtime (no kernels of our own, so no nvcc):
// bf16 products with fp32 accumulation, and bandwidth-bound work of the task's byte count. Enqueued on one
// stream; scratch sized once for the largest shape so that nothing is allocated while timed.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <vector>

#include "validate/core/kernels.hpp"
#include "validate/cuda/cuda_device.hpp"

namespace shardscope::validate {

class CublasKernels : public Kernels {
 public:
  // A handle on `stream` with CUBLAS_DEFAULT_MATH (bf16 products run on tensor cores in it) and a fixed
  // 32 MiB workspace (cublasSetWorkspace), so that cuBLAS allocates nothing of its own while timed.
  explicit CublasKernels(cudaStream_t stream);
  ~CublasKernels();
  CublasKernels(const CublasKernels&) = delete;
  CublasKernels& operator=(const CublasKernels&) = delete;

  using Kernels::reserve;
  void reserve(const Gemm& gemm) override;
  void reserve_bytes(double bytes) override;

  // C = A B in bf16 (fp32 accumulation, CUBLAS_COMPUTE_32F), `batch` products as one strided batched call.
  void gemm(const Gemm& gemm) override;
  // y = a x + y in fp32 (cublasSaxpy: two reads and one write, 12 bytes per element) over `bytes` moved.
  void elementwise(double bytes) override;
  // Device-to-device cudaMemcpyAsync of bytes / 2 (read + write = bytes moved).
  void copy(double bytes) override;
  std::string gemm_dtype() const override { return "bfloat16"; }

  static constexpr std::size_t kWorkspaceBytes = 32u << 20;

 private:
  cudaStream_t stream_;
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer workspace_, a_, b_, c_, x_, y_;
};

}  // namespace shardscope::validate
