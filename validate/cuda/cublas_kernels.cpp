// cublasGemmStridedBatchedEx (bf16 in and out, fp32 compute), cublasSaxpy, cudaMemcpyAsync.
#include "validate/cuda/cublas_kernels.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "validate/core/executor.hpp"
#include "validate/cuda/cuda_check.hpp"

namespace shardscope::validate {

namespace {

constexpr std::size_t kBf16Bytes = 2;
constexpr double kTriadBytesPerElement = 12;  // fp32 axpy: read x, read y, write y

int as_int(std::int64_t value, const char* what) {
  if (value < 0 || value > INT_MAX) {
    throw ExecutionError(std::string("cuBLAS product: ") + what + " = " + std::to_string(value) +
                         " does not fit cuBLAS's 32-bit dimensions");
  }
  return static_cast<int>(value);
}

std::size_t bytes_of(std::int64_t batch, std::int64_t rows, std::int64_t cols) {
  return static_cast<std::size_t>(batch) * static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) *
         kBf16Bytes;
}

}  // namespace

CublasKernels::CublasKernels(cudaStream_t stream) : stream_(stream), workspace_(kWorkspaceBytes) {
  SHARDSCOPE_CUBLAS_CHECK(cublasCreate(&handle_));
  SHARDSCOPE_CUBLAS_CHECK(cublasSetStream(handle_, stream_));
  SHARDSCOPE_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  SHARDSCOPE_CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_.data(), workspace_.size_bytes()));
}

CublasKernels::~CublasKernels() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

void CublasKernels::reserve(const Gemm& g) {
  a_.ensure(bytes_of(g.batch, g.m, g.k));
  b_.ensure(bytes_of(g.batch, g.k, g.n));
  c_.ensure(bytes_of(g.batch, g.m, g.n));
}

void CublasKernels::reserve_bytes(double bytes) {
  // Element-wise: x and y of bytes / 12 floats each; copies: bytes / 2 from x into y.
  const auto half = static_cast<std::size_t>(std::ceil(std::max(bytes, 0.0) / 2));
  x_.ensure(half);
  y_.ensure(half);
}

void CublasKernels::gemm(const Gemm& g) {
  reserve(g);
  const int m = as_int(g.m, "m"), n = as_int(g.n, "n"), k = as_int(g.k, "k");
  const int batch = as_int(g.batch, "batch");
  if (m == 0 || n == 0 || k == 0 || batch == 0) return;
  const float alpha = 1, beta = 0;
  // Column-major C (m x n) = A (m x k) B (k x n), one after the other in memory per batch entry.
  SHARDSCOPE_CUBLAS_CHECK(
      cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a_.data(), CUDA_R_16BF,
                                 m, g.m * g.k, b_.data(), CUDA_R_16BF, k, g.k * g.n, &beta, c_.data(),
                                 CUDA_R_16BF, m, g.m * g.n, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void CublasKernels::elementwise(double bytes) {
  reserve_bytes(bytes);
  auto left = static_cast<std::int64_t>(std::floor(std::max(bytes, 0.0) / kTriadBytesPerElement));
  const float a = 1.0f;
  auto* x = static_cast<const float*>(x_.data());
  auto* y = static_cast<float*>(y_.data());
  while (left > 0) {
    const int chunk = static_cast<int>(std::min<std::int64_t>(left, INT_MAX / 2));
    SHARDSCOPE_CUBLAS_CHECK(cublasSaxpy(handle_, chunk, &a, x, 1, y, 1));
    x += chunk;
    y += chunk;
    left -= chunk;
  }
}

void CublasKernels::copy(double bytes) {
  reserve_bytes(bytes);
  const auto half = static_cast<std::size_t>(std::max(bytes, 0.0) / 2);
  if (half == 0) return;
  SHARDSCOPE_CUDA_CHECK(cudaMemcpyAsync(y_.data(), x_.data(), half, cudaMemcpyDeviceToDevice, stream_));
}

}  // namespace shardscope::validate
