// World communicator over MPI, ncclCommSplit per group kind, collectives waited for with a deadline.
#include "validate/cuda/nccl_groups.hpp"

#include <mpi.h>

#include <chrono>
#include <exception>
#include <thread>

#include "validate/core/executor.hpp"
#include "validate/cuda/cuda_check.hpp"
#include "validate/cuda/cuda_device.hpp"
#include "validate/cuda/group_layout.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

// Polls a non-blocking communicator until its pending call (init, split, enqueue) is done.
void wait_ready(ncclComm_t comm, double timeout_seconds, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    ncclResult_t state = ncclSuccess;
    SHARDSCOPE_NCCL_CHECK(ncclCommGetAsyncError(comm, &state));
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) throw ExecutionError(what + ": " + ncclGetErrorString(state));
    if (std::chrono::steady_clock::now() > deadline) {
      throw ExecutionError(what + ": not done after " + std::to_string(timeout_seconds) +
                           " s (a rank failed, stalled or was launched with another group size)");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace

NcclGroups::NcclGroups(int group_size, double timeout_seconds) {
  const int rank = world_rank(), ranks = world_size();
  ncclUniqueId id;
  if (rank == 0) SHARDSCOPE_NCCL_CHECK(ncclGetUniqueId(&id));
  SHARDSCOPE_MPI_CHECK(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD));
  try {
    ncclConfig_t config = non_blocking_config();
    SHARDSCOPE_NCCL_CHECK(ncclCommInitRankConfig(&world_, ranks, id, rank, &config));
    wait_ready(world_, timeout_seconds, "ncclCommInitRankConfig (world)");
    comms_[static_cast<std::size_t>(GroupKind::global)] = world_;
    sizes_[static_cast<std::size_t>(GroupKind::global)] = ranks;
    for (GroupKind kind : {GroupKind::intra, GroupKind::inter}) {
      const GroupPlacement p = group_placement(kind, rank, ranks, group_size);
      ncclConfig_t split_config = non_blocking_config();
      ncclComm_t& comm = comms_[static_cast<std::size_t>(kind)];
      SHARDSCOPE_NCCL_CHECK(ncclCommSplit(world_, p.color, p.key, &comm, &split_config));
      wait_ready(comm, timeout_seconds, std::string("ncclCommSplit (") + to_string(kind) + ")");
      int nccl_size = 0;
      SHARDSCOPE_NCCL_CHECK(ncclCommCount(comm, &nccl_size));
      if (nccl_size != p.comm_size) {
        throw ExecutionError(std::string("ncclCommSplit (") + to_string(kind) + "): " +
                             std::to_string(nccl_size) + " ranks, expected " + std::to_string(p.comm_size));
      }
      sizes_[static_cast<std::size_t>(kind)] = p.comm_size;
    }
  } catch (...) {
    abort_all();
    throw;
  }
}

NcclGroups::~NcclGroups() {
  if (std::uncaught_exceptions() > 0) {
    abort_all();
    return;
  }
  for (GroupKind kind : {GroupKind::intra, GroupKind::inter}) {
    ncclComm_t& comm = comms_[static_cast<std::size_t>(kind)];
    if (comm != nullptr) ncclCommDestroy(comm);
    comm = nullptr;
  }
  if (world_ != nullptr) ncclCommDestroy(world_);
  world_ = nullptr;
}

void NcclGroups::abort_all() {
  for (GroupKind kind : {GroupKind::intra, GroupKind::inter}) {
    ncclComm_t& comm = comms_[static_cast<std::size_t>(kind)];
    if (comm != nullptr) ncclCommAbort(comm);
    comm = nullptr;
  }
  if (world_ != nullptr) ncclCommAbort(world_);
  world_ = nullptr;
  comms_[static_cast<std::size_t>(GroupKind::global)] = nullptr;
}

void enqueue_nccl_collective(CollectiveKind kind, ncclComm_t comm, const void* send, void* recv,
                             std::int64_t count, cudaStream_t stream, double timeout_seconds) {
  if (comm == nullptr) throw ExecutionError("NCCL communicator already aborted");
  const auto n = static_cast<std::size_t>(count);
  switch (kind) {
    case CollectiveKind::all_gather:
      SHARDSCOPE_NCCL_CHECK(ncclAllGather(send, recv, n, ncclFloat32, comm, stream));
      break;
    case CollectiveKind::reduce_scatter:
      SHARDSCOPE_NCCL_CHECK(ncclReduceScatter(send, recv, n, ncclFloat32, ncclSum, comm, stream));
      break;
    case CollectiveKind::all_reduce:
      SHARDSCOPE_NCCL_CHECK(ncclAllReduce(send, recv, n, ncclFloat32, ncclSum, comm, stream));
      break;
  }
  wait_ready(comm, timeout_seconds, "NCCL enqueue");
}

void run_nccl_collective(CollectiveKind kind, NcclGroups& groups, GroupKind group, const void* send,
                         void* recv, std::int64_t count, cudaStream_t stream, double timeout_seconds,
                         const std::string& what) {
  ncclComm_t comm = groups.comm(group);
  enqueue_nccl_collective(kind, comm, send, recv, count, stream, timeout_seconds);
  wait_for_stream(stream, timeout_seconds, what, comm, [&] { groups.abort_all(); });
}

}  // namespace shardscope::validate
