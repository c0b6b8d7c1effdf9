// IterationResult: what one simulated iteration gives (per-GPU figures, the traced tasks, memory over time,
// link usage), as plain values that cross process boundaries; readable without SimGrid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/program/iteration_program.hpp"

namespace shardscope::sim {

struct GpuResult {
  int rank = 0;
  double peak_memory_bytes = 0;            // reserved: the runtime reserve and every gradient included
  double allocated_peak_memory_bytes = 0;  // allocated tensors (planner/program/memory_peak.hpp)
  double compute_seconds = 0;
  double exposed_comm_seconds = 0;                    // iteration time not covered by compute
  bool operator==(const GpuResult&) const = default;  // exact, field by field
};

struct TraceEvent {
  int rank = 0;
  int stream = 0;  // 0 compute, 1 communication
  std::string name;
  double start_seconds = 0;
  double end_seconds = 0;
  // A communication event's collective: its kind (all-gather ...), group kind (global, intra, inter), the
  // whole buffer's bytes, the algorithm that ran it (ring, ring-coarse, or NCCL's pick such as
  // ring/Simple) and its channels (1 for a shardscope ring). Empty and 0 for compute events.
  std::string collective;
  std::string group;
  double bytes = 0;
  std::string algorithm;
  int channels = 0;
  bool operator==(const TraceEvent&) const = default;  // exact, field by field
};

struct MemorySample {
  int rank = 0;
  double time_seconds = 0;
  MemoryBytes bytes{};
  bool operator==(const MemorySample&) const = default;  // exact, field by field
};

struct LinkUsage {
  std::string link;
  std::string direction;  // "up" or "down" (split-duplex halves)
  double bytes_per_second = 0;
  double bytes = 0;                                   // carried during the iteration
  double utilisation = 0;                             // bytes / (bandwidth x iteration time)
  bool operator==(const LinkUsage&) const = default;  // exact, field by field
};

struct IterationResult {
  double iteration_seconds = 0;
  double samples_per_second = 0;
  double tokens_per_second = 0;
  std::vector<GpuResult> gpus;
  std::vector<TraceEvent> trace;
  std::vector<MemorySample> memory;
  std::vector<LinkUsage> links;  // every link direction that carried traffic, by name
  std::int64_t activities = 0;   // SimGrid communications and executions started
  // Micro-steps not simulated: after two micro-steps that repeated their predecessors exactly (every task
  // of every GPU shifted by one period, to rounding), each adds that period (absent from the trace).
  int steady_state_micro_steps = 0;
  bool operator==(const IterationResult&) const = default;  // exact, field by field
};

}  // namespace shardscope::sim
