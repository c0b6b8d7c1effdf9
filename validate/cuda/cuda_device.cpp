// Device selection, streams, buffers and the polled wait with its deadline.
#include "validate/cuda/cuda_device.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "validate/core/executor.hpp"
#include "validate/core/poll.hpp"
#include "validate/cuda/cuda_check.hpp"
#include "validate/cuda/device_probe.hpp"

namespace shardscope::validate {

namespace {

// 1 MiB of bf16 values spread over [-1, 1) from a fixed-seed xorshift: products on zeros run faster than on
// real data (seen at 13 % on an H200), so every buffer starts with these bytes instead.
const std::vector<std::uint16_t>& random_bf16_tile() {
  static const std::vector<std::uint16_t> tile = [] {
    std::vector<std::uint16_t> t(512 * 1024);
    std::uint32_t state = 2463534242u;
    for (std::uint16_t& v : t) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      const float f = static_cast<float>(state) / 4294967296.0f * 2.0f - 1.0f;
      std::uint32_t bits = 0;
      std::memcpy(&bits, &f, sizeof bits);
      v = static_cast<std::uint16_t>(bits >> 16);
    }
    return t;
  }();
  return tile;
}

// The tile copied in once, then the filled part doubled device-side until `bytes` are written.
void fill_random(void* data, std::size_t bytes) {
  const std::vector<std::uint16_t>& tile = random_bf16_tile();
  auto* base = static_cast<char*>(data);
  const std::size_t first = std::min(bytes, tile.size() * sizeof(std::uint16_t));
  SHARDSCOPE_CUDA_CHECK(cudaMemcpy(base, tile.data(), first, cudaMemcpyHostToDevice));
  for (std::size_t filled = first; filled < bytes;) {
    const std::size_t n = std::min(filled, bytes - filled);
    SHARDSCOPE_CUDA_CHECK(cudaMemcpy(base + filled, base, n, cudaMemcpyDeviceToDevice));
    filled += n;
  }
  SHARDSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) { ensure(bytes); }

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::ensure(std::size_t bytes) {
  if (bytes <= bytes_ && data_ != nullptr) return;
  if (data_ != nullptr) SHARDSCOPE_CUDA_CHECK(cudaFree(data_));
  data_ = nullptr;
  bytes_ = 0;
  SHARDSCOPE_CUDA_CHECK(cudaMalloc(&data_, bytes == 0 ? 1 : bytes));
  fill_random(data_, bytes == 0 ? 1 : bytes);
  bytes_ = bytes;
}

CudaDevice::CudaDevice(int local_rank) {
  const DeviceProbe probe = probe_cuda_devices();
  if (!probe.usable()) throw ExecutionError(probe.reason());
  device_ = local_rank % probe.device_count;
  make_current();
  SHARDSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  SHARDSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking));
  SHARDSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&alloc_, cudaStreamNonBlocking));
}

CudaDevice::~CudaDevice() {
  for (cudaStream_t stream : {compute_, comm_, alloc_}) {
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
}

void CudaDevice::make_current() const { SHARDSCOPE_CUDA_CHECK(cudaSetDevice(device_)); }

void wait_for_stream(cudaStream_t stream, double timeout_seconds, const std::string& what, ncclComm_t comm,
                     const std::function<void()>& abort_communicators) {
  cudaEvent_t done = nullptr;
  SHARDSCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  struct Destroy {
    cudaEvent_t event;
    ~Destroy() { cudaEventDestroy(event); }
  } destroy{done};
  SHARDSCOPE_CUDA_CHECK(cudaEventRecord(done, stream));
  const bool done_in_time = poll_until(
      [&] {
        const cudaError_t state = cudaEventQuery(done);
        if (state == cudaSuccess) return true;
        if (state != cudaErrorNotReady) check_cuda(state, "cudaEventQuery");
        if (comm != nullptr) {
          ncclResult_t async = ncclSuccess;
          SHARDSCOPE_NCCL_CHECK(ncclCommGetAsyncError(comm, &async));
          if (async != ncclSuccess && async != ncclInProgress) {
            if (abort_communicators) abort_communicators();
            throw ExecutionError(what + ": NCCL failed: " + ncclGetErrorString(async));
          }
        }
        return false;
      },
      timeout_seconds);
  if (!done_in_time) {
    if (abort_communicators) abort_communicators();
    throw ExecutionError(what + ": not done after " + std::to_string(timeout_seconds) +
                         " s (a rank failed, stalled or runs another plan)");
  }
}

double event_seconds(cudaEvent_t start, cudaEvent_t end) {
  float ms = 0;
  SHARDSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, end));
  return static_cast<double>(ms) / 1000;
}

}  // namespace shardscope::validate
