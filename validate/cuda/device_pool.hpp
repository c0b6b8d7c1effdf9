// DevicePool: the program's buffers on the GPU, taken from a stream-ordered memory pool (cudaMemPool) whose
// used high-water mark is the measured peak, with the pool's reserved high-water mark and the device's
// total - free as the outer bounds.
#pragma once

#include <cuda_runtime.h>

#include <mutex>

#include "validate/core/counting_allocator.hpp"
#include "validate/cuda/cuda_device.hpp"

namespace shardscope::validate {

class DevicePool : public MemorySource {
 public:
  // A pool of its own on `device` (nothing else allocates from it), releasing nothing back to the device.
  explicit DevicePool(const CudaDevice& device);
  ~DevicePool() override;
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  // cudaMallocFromPoolAsync / cudaFreeAsync on the allocation stream (buffers the program counts are never
  // touched by kernels, so no other stream orders them); a device sample of total - free after each take.
  void* acquire(std::size_t bytes) override;
  void give_back(void* block, std::size_t bytes) override;

  // Restarts the pool's high-water marks (cudaMemPoolAttrUsedMemHigh / ReservedMemHigh set to 0: they
  // become what is in use now) and the device peak at the current sample.
  void reset_peaks();
  double used_high_bytes() const;
  double reserved_high_bytes() const;
  double device_peak_bytes() const;
  // total - free on the device now (context, cuBLAS workspace, NCCL buffers, this pool, other processes).
  double device_used_bytes() const;

 private:
  const CudaDevice& device_;
  cudaMemPool_t pool_ = nullptr;
  mutable std::mutex mutex_;
  double device_peak_bytes_ = 0;
};

}  // namespace shardscope::validate
