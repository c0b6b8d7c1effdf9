// One checking macro each for CUDA, cuBLAS and NCCL calls: a failure throws ExecutionError naming the call
// and the library's own error text.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

namespace shardscope::validate {

void check_cuda(cudaError_t code, const char* call);
void check_cublas(cublasStatus_t code, const char* call);
// ncclInProgress is not a failure (non-blocking communicators): callers wait for it.
void check_nccl(ncclResult_t code, const char* call);

#define SHARDSCOPE_CUDA_CHECK(call) ::shardscope::validate::check_cuda((call), #call)
#define SHARDSCOPE_CUBLAS_CHECK(call) ::shardscope::validate::check_cublas((call), #call)
#define SHARDSCOPE_NCCL_CHECK(call) ::shardscope::validate::check_nccl((call), #call)

}  // namespace shardscope::validate
