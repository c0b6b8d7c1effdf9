// Measurements: the one set of structs for the measurements JSON (what shardscope-validate writes, what
// `shardscope calibrate` and `compare` read; the contract in validate/README.md, version 1), its writer and
// its reader. Plain C++ over the planner: no MPI, CUDA or SimGrid.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/model.hpp"
#include "planner/cost/collective_cost.hpp"
#include "planner/program/iteration_program.hpp"

namespace shardscope {

struct MachineInfo {
  std::string backend = "cpu-mpi";  // "cpu-mpi" | "cuda-nccl" | "cuda-emulated" (readers: "nccl-tests", ...)
  std::vector<std::string> hostnames;  // per rank
  int ranks = 1;
  int ranks_per_node = 1;
  std::string device_name;
  std::map<std::string, std::string> versions;  // "mpi", "eigen", "cuda", "nccl"
  double compute_scale = 1;
  double memory_bytes_per_rank = 0;  // the node's memory / ranks per node (0: not measured)
  int emulated_rank = -1;  // cuda-emulated: the plan's rank this one GPU ran (-1: a real run of every rank)
  bool operator==(const MachineInfo&) const = default;
};

// One row of the nccl-tests table (out-of-place), time averaged over iterations then over ranks. The
// contract's group kinds: "intra", "inter", "all" (GroupKind::global).
struct CollectiveSample {
  CollectiveKind op = CollectiveKind::all_reduce;
  GroupKind group = GroupKind::global;
  int group_size = 2;
  int nodes = 1;
  double bytes = 0;        // nccl-tests "size": the per-rank buffer (all-reduce), the total (gather, scatter)
  std::int64_t count = 0;  // elements per rank, as nccl-tests prints it
  std::string type = "float32";
  double time_seconds = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  int iterations = 0;
  std::size_t index = 0;  // position in `collectives` (for error messages and reports; not written)
  bool operator==(const CollectiveSample&) const = default;
};

// C (m x n) = A (m x k) * B (k x n), `batch` times: one product (all `batch` of them), averaged over
// repetitions and ranks.
struct GemmSample {
  std::string role;  // the forward product's role, "+dgrad" / "+wgrad" in backward ("" when not recorded)
  OperatorKind operator_kind = OperatorKind::other;
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  std::string dtype = "float32";  // "float32", "float16", "bfloat16", ...
  double time_seconds = 0;
  double flops = 0;  // gemm_flops() of the shape unless the file says otherwise
  std::size_t index = 0;
  bool operator==(const GemmSample&) const = default;
};

// 2 batch m n k, as the harness computes it.
double gemm_flops(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k);

struct BandwidthSample {  // elementwise and copies
  std::string kind;       // copies: device_to_device / host_to_device / device_to_host; elementwise: ""
  double bytes = 0;       // bytes moved (read + written)
  double time_seconds = 0;
  bool operator==(const BandwidthSample&) const = default;
};

struct OverlapSample {
  double collective_bytes = 0;
  double compute_alone_seconds = 0, comm_alone_seconds = 0;
  double compute_with_comm_seconds = 0, comm_with_compute_seconds = 0;
  std::size_t index = 0;
  bool operator==(const OverlapSample&) const = default;
};

struct MeasuredTask {
  std::string name;  // task_name(): " #k" for micro-step k when there are several
  Task::Stream stream = Task::Stream::compute;
  double seconds = 0;
  std::string operator_name;     // compute tasks: the model operator ("" for collectives)
  std::string kind = "compute";  // "compute", "all_gather", "reduce_scatter", "all_reduce"
  double bytes = 0;              // collectives: the full buffer
  bool operator==(const MeasuredTask&) const = default;
};

struct MeasuredIteration {
  std::string scenario, strategy, plan_digest;
  std::int64_t micro_batch = 1;
  int micro_steps = 1;
  double iteration_seconds = 0;  // mean over ranks of each rank's mean over the measured iterations
  std::vector<double> iteration_seconds_per_rank;
  double peak_bytes = 0;  // the largest rank's
  std::vector<double> peak_bytes_per_rank;
  // Backends with their own memory accounting (cuda-nccl: peak_bytes is the device pool's used high-water
  // mark); each list is written only when the backend measured it:
  std::vector<double> counted_peak_bytes_per_rank;           // the counting allocator's peak
  std::vector<double> reserved_peak_bytes_per_rank;          // the pool's reserved high-water mark
  std::vector<double> device_peak_bytes_per_rank;            // device total - free, highest sample
  std::vector<double> emulated_collective_seconds_per_rank;  // copies standing in for collectives
  std::vector<double> compute_seconds_per_rank;  // the rank's compute tasks in an iteration (median)
  std::vector<double> page_faults_per_rank;      // minor page faults per measured iteration (median)
  std::string same_plan_as;  // another strategy of the run with this plan, whose measurement this is
  std::vector<std::vector<double>> measured_seconds_per_rank;  // every measured iteration, in run order
  std::vector<MeasuredTask> tasks;  // rank 0's tasks, each its median over the measured iterations
  // What the planner and the program predicted for this plan on the scenario's cluster.
  double planner_iteration_seconds = 0;
  double planner_peak_bytes = 0;
  double program_peak_bytes = 0;  // program_peak_bytes(): the counting allocator's predicted peak
  int measured_iterations = 0;
  std::size_t index = 0;
  bool operator==(const MeasuredIteration&) const = default;
};

// Each measured iteration's time, the mean over the ranks of measured_seconds_per_rank (empty when the file
// has none).
std::vector<double> iteration_samples(const MeasuredIteration& iteration);

struct Measurements {
  std::string file;  // where it was read from ("" when measured in this process; not written)
  MachineInfo machine;
  std::vector<CollectiveSample> collectives;
  std::vector<GemmSample> gemms;
  std::vector<BandwidthSample> elementwise, copies;
  std::vector<OverlapSample> overlap;
  // The runtime's own fixed memory (context, library workspaces, communicator buffers); nothing on the cpu
  // backend, which has no runtime of its own (JSON null, so a fit keeps the scenario's runtime_reserve).
  std::optional<double> reserve_bytes;
  std::vector<MeasuredIteration> iterations;
  bool operator==(const Measurements&) const = default;
};

// The JSON in the contract's key order (deterministic: the same measurements give the same bytes).
nlohmann::ordered_json measurements_to_json(const Measurements& measurements);

// Parses measurements JSON text; throws InputError (file:line: field: what was expected) for malformed
// JSON, another format or version, a missing, mistyped or out-of-range field. Unknown fields are ignored.
Measurements parse_measurements(const std::string& text, const std::string& file);
Measurements load_measurements_file(const std::string& path);

// The number of bytes one ring step moves for a sample, and its ring steps: all-reduce moves bytes/n per step
// over 2(n-1) steps; all-gather and reduce-scatter (bytes = the total) bytes/n over n-1 steps.
double ring_message_bytes(const CollectiveSample& sample);
int sample_ring_steps(const CollectiveSample& sample);

// The contract's spelling of a group kind and of a collective ("all", "all_reduce").
std::string contract_name(GroupKind group);
std::string contract_name(CollectiveKind op);

}  // namespace shardscope
