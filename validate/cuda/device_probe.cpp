// cudaGetDeviceCount with its error cleared (it fails with 35 without a driver, 100 without a device).
#include "validate/cuda/device_probe.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

namespace shardscope::validate {

std::string DeviceProbe::reason() const {
  if (usable()) return "";
  if (error_code != 0) {
    return "no CUDA device: cudaGetDeviceCount returned " + std::to_string(error_code) + " (" + error_text +
           ")";
  }
  return "no CUDA device: cudaGetDeviceCount returned 0 devices";
}

DeviceProbe probe_cuda_devices() {
  DeviceProbe probe;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  cudaGetLastError();  // the failure is sticky until read
  probe.error_code = static_cast<int>(error);
  if (error != cudaSuccess) {
    probe.error_text = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
  } else {
    probe.device_count = count;
  }
  return probe;
}

std::string cuda_library_versions() {
  int runtime = 0, driver = 0, nccl = 0, cublas_major = 0, cublas_minor = 0, cublas_patch = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  cudaGetLastError();
  ncclGetVersion(&nccl);
  cublasGetProperty(MAJOR_VERSION, &cublas_major);
  cublasGetProperty(MINOR_VERSION, &cublas_minor);
  cublasGetProperty(PATCH_LEVEL, &cublas_patch);
  auto dotted = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  return "cuda runtime " + dotted(runtime) + ", driver " + (driver > 0 ? dotted(driver) : "none") +
         ", cuBLAS " + std::to_string(cublas_major) + "." + std::to_string(cublas_minor) + "." +
         std::to_string(cublas_patch) + ", NCCL " + std::to_string(nccl / 10000) + "." +
         std::to_string(nccl / 100 % 100) + "." + std::to_string(nccl % 100);
}

}  // namespace shardscope::validate
