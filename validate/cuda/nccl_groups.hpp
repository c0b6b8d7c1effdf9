// The plan's NCCL communicators: a world communicator bootstrapped over MPI (rank 0's ncclUniqueId sent with
// MPI_Bcast), split into the intra, inter and global groups exactly as the cpu backend's MPI_Comm_split
// (group_placement). Non-blocking communicators, so every wait can give up; a timeout aborts them all.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#include "planner/cost/collective_cost.hpp"

namespace shardscope::validate {

class NcclGroups {
 public:
  // Every rank of MPI_COMM_WORLD calls this with the same group size M (the device must be current).
  NcclGroups(int group_size, double timeout_seconds);
  // ncclCommDestroy of each communicator, or ncclCommAbort when an exception is unwinding (a peer may be
  // gone) or after abort_all.
  ~NcclGroups();
  NcclGroups(const NcclGroups&) = delete;
  NcclGroups& operator=(const NcclGroups&) = delete;

  ncclComm_t comm(GroupKind group) const { return comms_[static_cast<std::size_t>(group)]; }
  int size(GroupKind group) const { return sizes_[static_cast<std::size_t>(group)]; }
  // ncclCommAbort of every communicator (after a timeout or an NCCL error); the handles become null.
  void abort_all();

 private:
  ncclComm_t world_ = nullptr;
  ncclComm_t comms_[3] = {nullptr, nullptr, nullptr};  // by GroupKind; global is world_
  int sizes_[3] = {1, 1, 1};
};

// One collective of `count` float32 elements per rank (the cpu backend's buffer rule) on `comm`, enqueued on
// `stream` and waited for with the deadline; all-gather: send count, receive count x ranks; reduce-scatter:
// send count x ranks, receive count; all-reduce: count both.
void run_nccl_collective(CollectiveKind kind, NcclGroups& groups, GroupKind group, const void* send,
                         void* recv, std::int64_t count, cudaStream_t stream, double timeout_seconds,
                         const std::string& what);

// Enqueues it without waiting (the benchmarks' back-to-back loop); ncclInProgress is waited out.
void enqueue_nccl_collective(CollectiveKind kind, ncclComm_t comm, const void* send, void* recv,
                             std::int64_t count, cudaStream_t stream, double timeout_seconds);

}  // namespace shardscope::validate
