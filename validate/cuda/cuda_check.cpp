// The three checks: library error name and string in the thrown ExecutionError.
#include "validate/cuda/cuda_check.hpp"

#include <string>

#include "validate/core/executor.hpp"

namespace shardscope::validate {

void check_cuda(cudaError_t code, const char* call) {
  if (code == cudaSuccess) return;
  cudaGetLastError();
  throw ExecutionError(std::string(call) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

void check_cublas(cublasStatus_t code, const char* call) {
  if (code == CUBLAS_STATUS_SUCCESS) return;
  throw ExecutionError(std::string(call) + ": " + cublasGetStatusName(code) + ": " +
                       cublasGetStatusString(code));
}

void check_nccl(ncclResult_t code, const char* call) {
  if (code == ncclSuccess || code == ncclInProgress) return;
  throw ExecutionError(std::string(call) + ": " + ncclGetErrorString(code));
}

}  // namespace shardscope::validate
