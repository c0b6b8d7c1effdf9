// MPI error checks, group communicators and timed-out collectives.
#include "validate/mpi/mpi_comm.hpp"

#include <mutex>

#include "validate/core/executor.hpp"
#include "validate/core/poll.hpp"
#include "validate/mpi_base/mpi_error.hpp"

namespace shardscope::validate {

void check_mpi(int code, const char* call) {
  try {
    mpi::check(code, call);
  } catch (const mpi::MpiError& e) {
    throw ExecutionError(e.what());  // the harness's callers stop a run on ExecutionError
  }
}

bool mpi_in_use() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);  // both may be called before MPI_Init
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

int world_rank() {
  if (!mpi_in_use()) return 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  if (!mpi_in_use()) return 1;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

void world_barrier() {
  if (mpi_in_use()) SHARDSCOPE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

int mpi_split_color(GroupKind kind, int rank, int group_size) {
  const int m = group_size > 0 ? group_size : 1;
  switch (kind) {
    case GroupKind::intra:
      return rank / m;
    case GroupKind::inter:
      return rank % m;
    case GroupKind::global:
      break;
  }
  return 0;
}

MpiGroups::MpiGroups(int group_size, MPI_Comm parent) {
  int rank = 0;
  SHARDSCOPE_MPI_CHECK(MPI_Comm_rank(parent, &rank));
  SHARDSCOPE_MPI_CHECK(
      MPI_Comm_split(parent, mpi_split_color(GroupKind::intra, rank, group_size), rank, &comms_[0]));
  SHARDSCOPE_MPI_CHECK(
      MPI_Comm_split(parent, mpi_split_color(GroupKind::inter, rank, group_size), rank, &comms_[1]));
  SHARDSCOPE_MPI_CHECK(MPI_Comm_dup(parent, &comms_[2]));
  for (std::size_t g = 0; g < 3; ++g) SHARDSCOPE_MPI_CHECK(MPI_Comm_size(comms_[g], &sizes_[g]));
}

MpiGroups::~MpiGroups() {
  for (MPI_Comm& comm : comms_) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
}

std::mutex& mpi_call_mutex() {
  static std::mutex mutex;
  return mutex;
}

MPI_Request start_all_to_all(MPI_Comm comm, const float* send, float* recv, std::int64_t count) {
  const std::lock_guard<std::mutex> lock(mpi_call_mutex());
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Request request = MPI_REQUEST_NULL;
  if (ranks == 1) return request;
  const int n = static_cast<int>(count);
  SHARDSCOPE_MPI_CHECK(MPI_Ialltoall(send, n, MPI_FLOAT, recv, n, MPI_FLOAT, comm, &request));
  return request;
}

MPI_Request start_collective(CollectiveKind kind, MPI_Comm comm, const float* send, float* recv,
                             std::int64_t count) {
  const std::lock_guard<std::mutex> lock(mpi_call_mutex());
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  const int n = static_cast<int>(count);
  MPI_Request request = MPI_REQUEST_NULL;
  if (ranks == 1) return request;
  switch (kind) {
    case CollectiveKind::all_gather:
      SHARDSCOPE_MPI_CHECK(MPI_Iallgather(send, n, MPI_FLOAT, recv, n, MPI_FLOAT, comm, &request));
      break;
    case CollectiveKind::reduce_scatter:
      SHARDSCOPE_MPI_CHECK(MPI_Ireduce_scatter_block(send, recv, n, MPI_FLOAT, MPI_SUM, comm, &request));
      break;
    case CollectiveKind::all_reduce:
      SHARDSCOPE_MPI_CHECK(MPI_Iallreduce(send, recv, n, MPI_FLOAT, MPI_SUM, comm, &request));
      break;
  }
  return request;
}

void wait_collective(MPI_Request& request, double timeout_seconds, const std::string& what, PollRest rest) {
  if (request == MPI_REQUEST_NULL) return;
  int done = 0;
  const bool answered = poll_until(
      [&] {
        const std::lock_guard<std::mutex> test_lock(mpi_call_mutex());
        SHARDSCOPE_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      timeout_seconds, rest);
  if (!answered) {
    throw ExecutionError(what + ": no answer from the other ranks after " + std::to_string(timeout_seconds) +
                         " s (a rank failed, stalled or runs another plan)");
  }
}

void run_collective(CollectiveKind kind, MPI_Comm comm, const float* send, float* recv, std::int64_t count,
                    double timeout_seconds, const std::string& what, PollRest rest) {
  MPI_Request request = start_collective(kind, comm, send, recv, count);
  wait_collective(request, timeout_seconds, what, rest);
}

std::string mpi_version() {
  if (!mpi_in_use()) return "none (one process, --no-mpi)";
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  const std::size_t end = version.find_first_of(",\n");
  return end == std::string::npos ? version : version.substr(0, end);
}

}  // namespace shardscope::validate
