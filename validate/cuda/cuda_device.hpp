// The GPU one rank drives: device selection, the compute, communication and allocation streams, device
// buffers, and the one way this backend waits for the GPU: polling an event until a deadline.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <functional>
#include <string>

namespace shardscope::validate {

// A cudaMalloc'ed buffer outside the program's pool (kernels' scratch, collective buffers), zero-filled.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }
  std::size_t size_bytes() const { return bytes_; }
  // Grows (contents lost) to at least `bytes`; new memory holds bf16 values in [-1, 1), never zeros.
  void ensure(std::size_t bytes);

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class CudaDevice {
 public:
  // Device `local_rank` mod the visible devices (one rank per GPU of a node); throws ExecutionError with
  // the probe's reason when there is none.
  explicit CudaDevice(int local_rank);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;
  int index() const { return device_; }
  // Makes this device current on the calling thread (the executor runs each stream on its own thread).
  void make_current() const;
  cudaStream_t compute_stream() const { return compute_; }
  cudaStream_t comm_stream() const { return comm_; }
  cudaStream_t alloc_stream() const { return alloc_; }

 private:
  int device_ = 0;
  cudaStream_t compute_ = nullptr, comm_ = nullptr, alloc_ = nullptr;
};

// Records an event on `stream` and polls it until the work before it is done: spins for 200 us, then sleeps
// 20 us between queries. A `comm` that is not null is checked for an asynchronous NCCL error while waiting.
// On an NCCL error or past `timeout_seconds`, `abort_communicators` runs (its owner's ncclCommAbort of every
// communicator) and ExecutionError names `what`.
void wait_for_stream(cudaStream_t stream, double timeout_seconds, const std::string& what,
                     ncclComm_t comm = nullptr, const std::function<void()>& abort_communicators = {});

// Seconds between two recorded, completed events.
double event_seconds(cudaEvent_t start, cudaEvent_t end);

}  // namespace shardscope::validate
