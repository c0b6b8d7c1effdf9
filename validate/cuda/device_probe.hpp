// Is there a CUDA device? Asked without throwing and without CUDA headers, so the command line and the
// tests can say why the cuda-nccl backend cannot run ("no CUDA device: cudaGetDeviceCount returned ...").
#pragma once

#include <string>

namespace shardscope::validate {

struct DeviceProbe {
  int device_count = 0;
  int error_code = 0;      // cudaGetDeviceCount's cudaError_t (0 = success)
  std::string error_text;  // "cudaErrorInsufficientDriver: CUDA driver version is insufficient ..."
  bool usable() const { return error_code == 0 && device_count > 0; }
  // "no CUDA device: cudaGetDeviceCount returned 35 (cudaErrorInsufficientDriver: ...)" or "... returned 0
  // devices"; empty when usable.
  std::string reason() const;
};

DeviceProbe probe_cuda_devices();

// "cuda runtime 13.0, driver 0 (none), cuBLAS 13.0.0, NCCL 2.28.9": what is linked, for messages and tests.
std::string cuda_library_versions();

}  // namespace shardscope::validate
