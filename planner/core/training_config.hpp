// TrainingConfig: batch sizes, precision, optimizer, checkpointing and search knobs for one run.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/core/names.hpp"

namespace shardscope {

enum class Precision { fp32, mixed_bf16, mixed_fp16 };
enum class OptimizerKind { adam, sgd };
enum class CheckpointPolicy { none, all, search, selective, layers };
// At which batch `plan` compares the baselines: each at its own best micro-batch, or all at the plan's.
enum class BatchPolicy { own, equal };

template <>
struct EnumNames<Precision> {
  static constexpr NameEntry<Precision> table[] = {
      {Precision::fp32, "fp32", "fp32 weights, gradients and optimizer state"},
      {Precision::mixed_bf16, "mixed-bf16", "bf16 weights and gradients, fp32 master copy"},
      {Precision::mixed_fp16, "mixed-fp16", "fp16 weights and gradients, fp32 master copy"},
  };
};

template <>
struct EnumNames<OptimizerKind> {
  static constexpr NameEntry<OptimizerKind> table[] = {
      {OptimizerKind::adam, "adam", "Adam: momentum and variance per parameter"},
      {OptimizerKind::sgd, "sgd", "SGD with momentum"},
  };
};

template <>
struct EnumNames<CheckpointPolicy> {
  static constexpr NameEntry<CheckpointPolicy> table[] = {
      {CheckpointPolicy::none, "none", "keep every activation"},
      {CheckpointPolicy::all, "all", "checkpoint every operator"},
      {CheckpointPolicy::search, "search", "the planner decides per operator"},
      {CheckpointPolicy::selective, "selective",
       "op-level selective (torchtitan's op policy): keep alternate products' and attention's outputs"},
      {CheckpointPolicy::layers, "layers",
       "every checkpoint_every-th layer checkpointed whole (torchtitan's selective layer option)"},
  };
};

template <>
struct EnumNames<BatchPolicy> {
  static constexpr NameEntry<BatchPolicy> table[] = {
      {BatchPolicy::own, "own", "each baseline at its own best micro-batch (default)"},
      {BatchPolicy::equal, "equal", "every baseline at the plan's micro-batch and accumulation steps"},
  };
};

// Bytes of model state per parameter (ZeRO accounting): working parameters, gradients, optimizer state K.
struct StateBytesPerParameter {
  int parameter = 2;
  int gradient = 2;
  int optimizer = 12;
  int reduce = 2;  // bytes per gradient element as reductions move it (execution.reduce_dtype)
};
StateBytesPerParameter state_bytes_per_parameter(Precision precision, OptimizerKind optimizer);

// The most micro-steps one optimizer step may accumulate (2^20). Scenario validation rejects a
// gradient_accumulation_steps above it, and a global_batch that would need more steps at every micro-batch
// the planner may use; the planner's scan skips a micro-batch that would need more.
constexpr int kMaxAccumulationSteps = 1 << 20;

struct TrainingConfig {
  std::int64_t global_batch = 0;        // samples per optimizer step over all GPUs (0: the planner chooses)
  std::int64_t micro_batch = 0;         // samples per GPU per micro-step (0: the planner scans)
  int gradient_accumulation_steps = 1;  // 1 to kMaxAccumulationSteps (with a global_batch: derived from it)
  std::int64_t max_micro_batch = 1024;  // upper end of the planner's batch scan
  Precision precision = Precision::mixed_bf16;
  OptimizerKind optimizer = OptimizerKind::adam;
  CheckpointPolicy checkpointing = CheckpointPolicy::search;
  // Under `layers`: layers k, 2k, 3k ... (counted from 1) are checkpointed, the others keep everything.
  int checkpoint_every = 2;
  std::vector<int> slice_granularities{1, 2, 4, 8};
  int group_size = 0;                      // GPUs per group for hierarchical strategies (0: GPUs per node)
  std::int64_t memory_limit_bytes = 0;     // per-GPU limit (0: the device capacity)
  std::int64_t runtime_reserve_bytes = 0;  // CUDA context, allocator slack, NCCL buffers
  // How the report compares baselines (own: each at its best batch, as OSDP's and PaRO's end-to-end figures
  // do; equal: all at the plan's); it changes what the baseline table shows, not the scenario's digest.
  BatchPolicy batch_policy = BatchPolicy::own;
};

}  // namespace shardscope
