// A cudaMemPool of the rank's device with an unlimited release threshold, its attributes read as peaks.
#include "validate/cuda/device_pool.hpp"

#include <algorithm>
#include <cstdint>

#include "validate/cuda/cuda_check.hpp"

namespace shardscope::validate {

namespace {

double pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  std::uint64_t value = 0;
  SHARDSCOPE_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attribute, &value));
  return static_cast<double>(value);
}

}  // namespace

DevicePool::DevicePool(const CudaDevice& device) : device_(device) {
  device_.make_current();
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device_.index();
  SHARDSCOPE_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
  std::uint64_t keep_everything = UINT64_MAX;  // freed blocks stay reserved: no release between tasks
  SHARDSCOPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  device_peak_bytes_ = device_used_bytes();
}

DevicePool::~DevicePool() {
  if (pool_ == nullptr) return;
  cudaSetDevice(device_.index());
  cudaStreamSynchronize(device_.alloc_stream());
  cudaMemPoolDestroy(pool_);
}

void* DevicePool::acquire(std::size_t bytes) {
  device_.make_current();
  void* block = nullptr;
  SHARDSCOPE_CUDA_CHECK(cudaMallocFromPoolAsync(&block, bytes, pool_, device_.alloc_stream()));
  const double used = device_used_bytes();
  const std::lock_guard lock(mutex_);
  device_peak_bytes_ = std::max(device_peak_bytes_, used);
  return block;
}

void DevicePool::give_back(void* block, std::size_t /*bytes*/) {
  device_.make_current();
  SHARDSCOPE_CUDA_CHECK(cudaFreeAsync(block, device_.alloc_stream()));
}

void DevicePool::reset_peaks() {
  std::uint64_t zero = 0;
  SHARDSCOPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &zero));
  SHARDSCOPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &zero));
  const double used = device_used_bytes();
  const std::lock_guard lock(mutex_);
  device_peak_bytes_ = used;
}

double DevicePool::used_high_bytes() const { return pool_attribute(pool_, cudaMemPoolAttrUsedMemHigh); }
double DevicePool::reserved_high_bytes() const {
  return pool_attribute(pool_, cudaMemPoolAttrReservedMemHigh);
}

double DevicePool::device_peak_bytes() const {
  const std::lock_guard lock(mutex_);
  return device_peak_bytes_;
}

double DevicePool::device_used_bytes() const {
  device_.make_current();
  std::size_t free_bytes = 0, total_bytes = 0;
  SHARDSCOPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<double>(total_bytes - free_bytes);
}

}  // namespace shardscope::validate
