// MPI for the cpu backend: one checking macro, the plan's group communicators (MPI_Comm_split per group
// kind), and collectives whose every wait gives up after a timeout instead of hanging.
#pragma once

#include <mpi.h>

#include <mutex>
#include <string>

#include "planner/cost/collective_cost.hpp"
#include "validate/core/poll.hpp"

namespace shardscope::validate {

// The shared MPI check (validate/mpi_base) with the harness's error type: throws ExecutionError
// "<call> failed: <MPI's error string>" when an MPI call fails.
void check_mpi(int code, const char* call);
#define SHARDSCOPE_MPI_CHECK(call) ::shardscope::validate::check_mpi((call), #call)

// True once MPI_Init ran (and MPI_Finalize did not): false in a single process started with --no-mpi, where
// the world is this process alone and the helpers below answer without calling MPI.
bool mpi_in_use();
int world_rank();      // 0 without MPI
int world_size();      // 1 without MPI
void world_barrier();  // MPI_Barrier on the world; nothing without MPI

// The MPI_Comm_split colour of `rank` in its group of `kind` for group size M: r / M (intra), r mod M
// (inter), 0 (global); within a colour ranks keep their world order.
int mpi_split_color(GroupKind kind, int rank, int group_size);

// The communicators of one group size M (ranks r, r' are in one intra group when r / M = r' / M, in one inter
// group when r % M = r' % M; global = every rank): the groups the plan's collectives run on. The ranks are
// those of `parent` (a pipeline stage's communicator), numbered as it numbers them.
class MpiGroups {
 public:
  explicit MpiGroups(int group_size, MPI_Comm parent = MPI_COMM_WORLD);
  ~MpiGroups();
  MpiGroups(const MpiGroups&) = delete;
  MpiGroups& operator=(const MpiGroups&) = delete;
  MPI_Comm comm(GroupKind group) const { return comms_[static_cast<std::size_t>(group)]; }
  // The group's ranks, read once when it was made (no MPI call: threads of a rank ask while others call).
  int size(GroupKind group) const { return sizes_[static_cast<std::size_t>(group)]; }

 private:
  MPI_Comm comms_[3] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};  // by GroupKind
  int sizes_[3] = {1, 1, 1};
};

// Held around every MPI call run_collective makes: a rank's compute thread (a tensor-parallel operator's
// collectives) and its communication thread (the plan's) both call it, and the library is initialised for
// MPI_THREAD_SERIALIZED (no two calls at once).
std::mutex& mpi_call_mutex();

// One collective on `comm` over single-precision buffers: all-gather of `count` elements per rank into
// recv (count x ranks), reduce-scatter of count x ranks elements into `count` per rank, or all-reduce of
// `count` elements. Non-blocking call, then MPI_Test until done or `timeout_seconds` pass (ExecutionError
// naming `what`), resting between tests as `rest` says. A group of one rank exchanges nothing and returns
// at once (the cost model prices it at zero).
void run_collective(CollectiveKind kind, MPI_Comm comm, const float* send, float* recv, std::int64_t count,
                    double timeout_seconds, const std::string& what, PollRest rest);
// The same in two halves: started (MPI_REQUEST_NULL for a group of one rank), then waited for with the
// deadline; collectives started on one communicator must be started in the same order on every rank.
// Starts an all-to-all on `comm`: `count` floats from `send` to each rank (rank r's at r * count), as many
// from each into `recv` (MPI_REQUEST_NULL on a group of one).
MPI_Request start_all_to_all(MPI_Comm comm, const float* send, float* recv, std::int64_t count);
MPI_Request start_collective(CollectiveKind kind, MPI_Comm comm, const float* send, float* recv,
                             std::int64_t count);
void wait_collective(MPI_Request& request, double timeout_seconds, const std::string& what, PollRest rest);

// The Open MPI / MPI library version string.
std::string mpi_version();

}  // namespace shardscope::validate
