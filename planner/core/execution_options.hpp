// ExecutionOptions: how an iteration runs (overlap, prefetch, gradient buckets, which collectives), read once
// from the scenario and fed alike to the planner's cost model, the simulator and the hardware run.
#pragma once

#include "planner/core/names.hpp"
#include "planner/core/runtime_profile.hpp"

namespace shardscope {

// Which model prices (and the simulator runs) a plan's collectives: the ring step model, or NCCL's own
// (channels, tree, protocols: planner/cost/nccl_model.hpp), which FSDP / ZeRO-style runtimes execute.
enum class CollectiveModel { ring, nccl };

template <>
struct EnumNames<CollectiveModel> {
  static constexpr NameEntry<CollectiveModel> table[] = {
      {CollectiveModel::ring, "ring", "alpha-beta ring steps over the bottleneck link"},
      {CollectiveModel::nccl, "nccl", "NCCL's model: channels per NIC, tree, protocols LL/LL128/Simple"},
  };
};

// The scenario's choice (execution.collectives, --collectives). Every strategy of one plan or sweep point is
// priced alike, so that a comparison is of sharding, not of collective libraries: auto and nccl give every
// new plan NCCL's model (the paper cost model prices its own alpha-beta rings), ring gives every one rings.
// They differ for a plan read from a file: auto runs the collectives it records, ring and nccl override them.
enum class CollectivesChoice { automatic, ring, nccl };

template <>
struct EnumNames<CollectivesChoice> {
  static constexpr NameEntry<CollectivesChoice> table[] = {
      {CollectivesChoice::automatic, "auto",
       "every strategy's collectives as NCCL runs them; a plan file: its own"},
      {CollectivesChoice::ring, "ring", "every strategy's collectives as rings"},
      {CollectivesChoice::nccl, "nccl", "every strategy's collectives as NCCL runs them"},
  };
};

// How the training script computes the loss (execution.cross_entropy): what the head's backward holds
// beside the fp32 log-probabilities it keeps.
enum class CrossEntropy { fused, pytorch };

template <>
struct EnumNames<CrossEntropy> {
  static constexpr NameEntry<CrossEntropy> table[] = {
      {CrossEntropy::fused, "fused",
       "a fused kernel writes the logits' gradient alone (one fp32 logit-sized buffer; default)"},
      {CrossEntropy::pytorch, "pytorch",
       "torch.nn.functional.cross_entropy on fp32 logits: log_softmax's backward holds the gradients of "
       "its output and of its input at once (two buffers)"},
  };
};

// The dtype gradients are reduced in (execution.reduce_dtype): their own (bf16 under mixed-bf16; default),
// or fp32, as PyTorch FSDP's MixedPrecision(reduce_dtype=float32) does it (torchtitan's default, MosaicML
// Composer's DEFAULT mode): every gradient reduce-scatter and all-reduce moves 4 bytes per element.
enum class ReduceDtype { gradient, fp32 };

template <>
struct EnumNames<ReduceDtype> {
  static constexpr NameEntry<ReduceDtype> table[] = {
      {ReduceDtype::gradient, "gradient", "in the gradients' own dtype (default)"},
      {ReduceDtype::fp32, "fp32", "in fp32 (FSDP's reduce_dtype float32: torchtitan, Composer DEFAULT)"},
  };
};

struct ExecutionOptions {
  // Communication overlaps compute on a second stream (the planner charges max(compute, comm) plus the
  // calibrated overlap slowdown x the shorter one per micro-step; false: one stream, every task in order).
  bool overlap = true;
  int prefetch_depth = 1;   // gathered buffers in flight beyond the current one (FSDP's default is 1)
  double bucket_bytes = 0;  // gradient bucket size for the simulator (0: each slice reduced alone); the
                            // planner prices one reduce-scatter per slice either way
  CollectivesChoice collectives = CollectivesChoice::automatic;
  CrossEntropy cross_entropy = CrossEntropy::fused;
  // torch.compile per block (execution.compile) and float8 linear layers with their scaling recipe
  // (execution.float8); priced under a framework's profile only.
  KernelOptions kernel_options;
  ReduceDtype reduce_dtype = ReduceDtype::gradient;
  RuntimeProfile runtime;  // execution.runtime: the framework's profile, resolved from its file
};

}  // namespace shardscope
