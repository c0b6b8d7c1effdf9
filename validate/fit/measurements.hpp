// Measurements: the harness's measurements JSON (contract /work/notes/measurements-format.md, version 1) read
// into plain structs for `calibrate` and `compare`; unknown fields are ignored, bad ones name file:line:
// field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/core/model.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope::fit {

// The contract's group kinds: "intra", "inter", "all" (the planner's GroupKind::global).
struct CollectiveSample {
  CollectiveKind op = CollectiveKind::all_reduce;
  GroupKind group = GroupKind::global;
  int group_size = 2;
  int nodes = 1;
  double bytes =
      0;  // nccl-tests "size": the per-rank buffer (all-reduce), the total (all-gather, reduce-scatter)
  double time_seconds = 0;
  std::size_t index = 0;  // position in `collectives` (for error messages and reports)
};

struct GemmSample {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string dtype;  // "float32", "float16", "bfloat16", ...
  OperatorKind operator_kind = OperatorKind::other;
  double time_seconds = 0;
  double flops = 0;
  std::size_t index = 0;
};

struct BandwidthSample {  // elementwise and copies
  std::string kind;       // copies: device_to_device / host_to_device / device_to_host; elementwise: ""
  double bytes = 0;
  double time_seconds = 0;
};

struct OverlapSample {
  double collective_bytes = 0;
  double compute_alone_seconds = 0, comm_alone_seconds = 0;
  double compute_with_comm_seconds = 0, comm_with_compute_seconds = 0;
  std::size_t index = 0;
};

struct MeasuredTask {
  std::string name, stream, op, kind;
  double seconds = 0;
  double bytes = 0;
};

struct MeasuredIteration {
  std::string scenario, strategy, plan_digest;
  std::int64_t micro_batch = 1;
  int micro_steps = 1;
  double iteration_seconds = 0;
  double peak_bytes = 0;
  std::vector<double> compute_seconds_per_rank;  // each rank's compute tasks in an iteration (may be empty)
  // Each measured iteration's time, the mean over the ranks of measured_seconds_per_rank (empty when the
  // file has none); same_plan_as: the strategy whose run this is, when two strategies gave one plan.
  std::vector<double> iteration_samples;
  std::string same_plan_as;
  std::vector<MeasuredTask> tasks;
  std::size_t index = 0;
};

struct Measurements {
  std::string file;
  std::string backend;
  int ranks = 1, ranks_per_node = 1;
  int emulated_rank = -1;  // cuda-emulated: the plan's rank this one GPU ran (-1: a real run of every rank)
  std::string device_name;
  double compute_scale = 1.0;
  std::vector<CollectiveSample> collectives;
  std::vector<GemmSample> gemms;
  std::vector<BandwidthSample> elementwise, copies;
  std::vector<OverlapSample> overlap;
  std::optional<double> reserve_bytes;
  std::vector<MeasuredIteration> iterations;
};

// Parses measurements JSON text; throws InputError (file:line: field: what was expected) for malformed JSON,
// another format or version, a missing or out-of-range field.
Measurements parse_measurements(const std::string& text, const std::string& file);
Measurements load_measurements_file(const std::string& path);

// The number of bytes one ring step moves for a sample, and its ring steps: all-reduce moves bytes/n per step
// over 2(n-1) steps; all-gather and reduce-scatter (bytes = the total) bytes/n over n-1 steps.
double ring_message_bytes(const CollectiveSample& sample);
int sample_ring_steps(const CollectiveSample& sample);

// The contract's spelling of a group kind and of a collective ("all", "all_reduce").
std::string contract_name(GroupKind group);
std::string contract_name(CollectiveKind op);

}  // namespace shardscope::fit
