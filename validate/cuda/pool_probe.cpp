// shardscope-pool-probe: how a cudaMemPool (the cuda-nccl backend's allocator) counts the bytes it hands out.
// For each size, one block is taken from a fresh pool with an unlimited release threshold and the pool's used
// and reserved bytes are read before and after; then 64 blocks of one size at once. Prints JSON; exit 4 with
// the reason when there is no GPU or a CUDA call fails. The GPU check runs it (validate/gpu-cases.tsv) to
// explain the emulated rank's pool peak over the program's counted peak.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// A failed CUDA call, named with the runtime's reason; main() prints it and exits 4.
[[noreturn]] void fail(const char* call, cudaError_t error) {
  throw std::runtime_error(std::string(call) + ": " + cudaGetErrorName(error) + " (" +
                           cudaGetErrorString(error) + ")");
}

#define PROBE_CHECK(call)                                     \
  do {                                                        \
    const cudaError_t probe_error = (call);                   \
    if (probe_error != cudaSuccess) fail(#call, probe_error); \
  } while (0)

struct PoolBytes {
  std::uint64_t used = 0, reserved = 0;
};

PoolBytes read(cudaMemPool_t pool) {
  PoolBytes b;
  PROBE_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &b.used));
  PROBE_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &b.reserved));
  return b;
}

cudaMemPool_t new_pool() {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool = nullptr;
  PROBE_CHECK(cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep = UINT64_MAX;
  PROBE_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return pool;
}

// `count` blocks of `bytes` from a fresh pool: the used and reserved bytes they add.
std::string probe(std::uint64_t bytes, int count, cudaStream_t stream) {
  cudaMemPool_t pool = new_pool();
  const PoolBytes before = read(pool);
  std::vector<void*> blocks(static_cast<std::size_t>(count));
  for (void*& b : blocks) PROBE_CHECK(cudaMallocFromPoolAsync(&b, bytes, pool, stream));
  PROBE_CHECK(cudaStreamSynchronize(stream));
  const PoolBytes after = read(pool);
  for (void* b : blocks) PROBE_CHECK(cudaFreeAsync(b, stream));
  PROBE_CHECK(cudaStreamSynchronize(stream));
  PROBE_CHECK(cudaMemPoolDestroy(pool));
  char line[256];
  std::snprintf(line, sizeof line,
                "{\"bytes\": %llu, \"blocks\": %d, \"used_bytes\": %llu, \"reserved_bytes\": %llu}",
                static_cast<unsigned long long>(bytes), count,
                static_cast<unsigned long long>(after.used - before.used),
                static_cast<unsigned long long>(after.reserved - before.reserved));
  return line;
}

}  // namespace

// The probe's JSON on stdout; throws std::runtime_error naming a failed CUDA call.
int run() {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    std::fprintf(stderr,
                 "shardscope-pool-probe: error: no CUDA device: cudaGetDeviceCount returned %d (%s)\n",
                 static_cast<int>(error), error == cudaSuccess ? "0 devices" : cudaGetErrorName(error));
    return 4;
  }
  PROBE_CHECK(cudaSetDevice(0));
  cudaStream_t stream = nullptr;
  PROBE_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
  const std::vector<std::uint64_t> sizes = {
      1,           255,         256,      257,          511,          512,          513,
      4 * KiB - 1, 4 * KiB + 1, 64 * KiB, 64 * KiB + 1, MiB - 1,      MiB + 1,      2 * MiB - 1,
      2 * MiB,     2 * MiB + 1, 3 * MiB,  10 * MiB + 1, 20 * MiB + 1, 64 * MiB + 1, GiB + 1};
  std::printf("{\n  \"format\": \"shardscope-pool-probe\",\n  \"single\": [\n");
  for (std::size_t i = 0; i < sizes.size(); ++i)
    std::printf("    %s%s\n", probe(sizes[i], 1, stream).c_str(), i + 1 < sizes.size() ? "," : "");
  std::printf("  ],\n  \"many\": [\n");
  const std::vector<std::uint64_t> many = {1000, 4 * KiB + 1, 100 * KiB + 1, MiB + 1, 3 * MiB + 1};
  for (std::size_t i = 0; i < many.size(); ++i)
    std::printf("    %s%s\n", probe(many[i], 64, stream).c_str(), i + 1 < many.size() ? "," : "");
  std::printf("  ]\n}\n");
  PROBE_CHECK(cudaStreamDestroy(stream));
  return 0;
}

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shardscope-pool-probe: error: %s\n", e.what());
    return 4;
  }
}
