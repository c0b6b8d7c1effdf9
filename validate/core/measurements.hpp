// Measurements: what `shardscope-validate bench` and `run` measure, and its JSON (the format contract read by
// `shardscope calibrate` and `shardscope compare`: notes in validate/README.md, "measurements.json").
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "validate/core/executor.hpp"

namespace shardscope::validate {

struct MachineInfo {
  std::string backend = "cpu-mpi";     // "cpu-mpi" | "cuda-nccl" | "cuda-emulated"
  std::vector<std::string> hostnames;  // per rank
  int ranks = 1;
  int ranks_per_node = 1;
  std::string device_name;
  std::map<std::string, std::string> versions;  // "mpi", "eigen", "cuda", "nccl"
  double compute_scale = 1;
  double memory_bytes_per_rank = 0;  // added: the node's memory / ranks per node
  int emulated_rank = -1;            // cuda-emulated: the plan's rank this one GPU ran (JSON only when >= 0)
};

// One row of the nccl-tests table (out-of-place), time averaged over iterations then over ranks.
struct CollectiveResult {
  std::string op;     // "all_reduce" | "all_gather" | "reduce_scatter"
  std::string group;  // "intra" | "inter" | "all"
  int group_size = 0;
  int nodes = 1;
  double bytes = 0;        // nccl-tests' size: the per-rank buffer (all-reduce), the total (gather, scatter)
  std::int64_t count = 0;  // elements per rank, as nccl-tests prints it
  std::string type = "float32";
  double time_seconds = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  int iterations = 0;
};

struct GemmResult {
  Gemm gemm;
  std::string dtype = "float32";
  double time_seconds = 0;  // one product (all `batch` of them), averaged over repetitions and ranks
};

struct BandwidthResult {
  std::string kind;  // copies: "device_to_device" (memcpy on the cpu backend); empty for element-wise
  double bytes = 0;  // bytes moved (read + written)
  double time_seconds = 0;
};

struct OverlapResult {
  double collective_bytes = 0;
  double compute_alone_seconds = 0;
  double comm_alone_seconds = 0;
  double compute_with_comm_seconds = 0;
  double comm_with_compute_seconds = 0;
};

struct IterationResult {
  std::string scenario;
  std::string strategy;
  std::string plan_digest;
  std::int64_t micro_batch = 1;
  int micro_steps = 1;
  double iteration_seconds = 0;  // mean over ranks of each rank's mean over the measured iterations
  std::vector<double> iteration_seconds_per_rank;
  double peak_bytes = 0;  // the largest rank's
  std::vector<double> peak_bytes_per_rank;
  // Backends with their own memory accounting (cuda-nccl: peak_bytes is the device pool's used high-water
  // mark); each list is written only when the backend measured it:
  std::vector<double> counted_peak_bytes_per_rank;   // the counting allocator's peak
  std::vector<double> reserved_peak_bytes_per_rank;  // the pool's reserved high-water mark
  std::vector<double> device_peak_bytes_per_rank;    // device total - free, highest sample
  std::vector<double>
      emulated_collective_seconds_per_rank;      // copies standing in for collectives, per iteration
  std::vector<double> compute_seconds_per_rank;  // the rank's compute tasks in a measured iteration (median)
  std::vector<double>
      page_faults_per_rank;  // the rank process's minor page faults per measured iteration (median)
  std::string same_plan_as;  // another strategy of the run with this plan, whose measurement this is
  std::vector<std::vector<double>> measured_seconds_per_rank;  // every measured iteration, in run order
  std::vector<TaskTiming> tasks;  // rank 0's tasks, each its median over the measured iterations
  // Added: what the planner and the program predicted for this plan on the scenario's cluster.
  double planner_iteration_seconds = 0;
  double planner_peak_bytes = 0;
  double program_peak_bytes = 0;  // program_peak_bytes(): the counting allocator's predicted peak
  int measured_iterations = 0;
};

struct Measurements {
  MachineInfo machine;
  std::vector<CollectiveResult> collectives;
  std::vector<GemmResult> gemms;
  std::vector<BandwidthResult> elementwise;
  std::vector<BandwidthResult> copies;
  std::vector<OverlapResult> overlap;
  // The runtime's own fixed memory (context, library workspaces, communicator buffers); nothing on the cpu
  // backend, which has no runtime of its own (JSON null, so a fit keeps the scenario's runtime_reserve).
  std::optional<double> reserve_bytes;
  std::vector<IterationResult> iterations;
};

nlohmann::ordered_json measurements_to_json(const Measurements& measurements);
// Reads what describe needs back (machine, collectives, gemms, element-wise); throws std::invalid_argument
// naming the field that is missing or of the wrong type.
Measurements measurements_from_json(const nlohmann::json& json);

}  // namespace shardscope::validate
