// RuntimeProfile: how a training framework executes an iteration (ideal executor, PyTorch FSDP2 / FSDP1,
// DeepSpeed ZeRO) — what it costs on the host per operator, the memory it holds outside the model, and
// whether kernels are priced by the GPU's measured efficiencies (scenarios/runtimes/*.yaml, with sources).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/core/names.hpp"

namespace shardscope {

enum class RuntimeName { ideal, fsdp2, fsdp1, deepspeed };

template <>
struct EnumNames<RuntimeName> {
  static constexpr NameEntry<RuntimeName> table[] = {
      {RuntimeName::ideal, "ideal", "an ideal executor: one GEMM rate, no host cost, no reserve (default)"},
      {RuntimeName::fsdp2, "fsdp2", "PyTorch FSDP2 (fully_shard), eager"},
      {RuntimeName::fsdp1, "fsdp1", "PyTorch FSDP1 (FullyShardedDataParallel), eager"},
      {RuntimeName::deepspeed, "deepspeed", "DeepSpeed ZeRO (stage 1-3, MiCS, ZeRO++)"},
  };
};

// The numbers a profile file gives (scenarios/runtimes/NAME.yaml); ideal's are all zero.
// How far the shipped presets' predictions under a profile were from published measurements on one GPU:
// the held-out rows of validate/published/ (docs/published.md), the basis of a prediction's stated
// uncertainty. Fractions: mean |predicted / measured - 1|, its mean, its largest.
struct PublishedError {
  std::string gpu;  // GpuSpec::name of the rows' cluster preset
  int rows = 0;
  double mape = 0, bias = 0, worst = 0;
  double min_parameters = 0, max_parameters = 0;  // the rows' models
  int min_gpus = 0, max_gpus = 0;
  // Pairs of these rows from one source (one table: one cluster, one framework): how many, and the root mean
  // square over them of ln(predicted ratio / measured ratio), how far a predicted ratio between two settings
  // strays (0 pairs: not scored). What a plan's "faster than B with probability" rests on.
  int pairs = 0;
  double pair_sd = 0;
  // Of these rows, those whose table has a memory column: how many, and the mean |predicted / measured - 1|
  // of the peak memory (0 rows: the prediction's memory was not scored on this GPU).
  int memory_rows = 0;
  double memory_mape = 0;
};

struct RuntimeProfile {
  RuntimeName name = RuntimeName::ideal;
  // Host time to issue one operator's forward or backward (Python, autograd, the framework's hooks and the
  // kernels' launches): a pass takes at least this long, however small its kernels.
  double host_forward_seconds = 0;
  double host_backward_seconds = 0;
  // Memory outside the model's tensors on every GPU: CUDA context, NCCL buffers, cuBLAS workspace and the
  // caching allocator's fragmentation.
  double reserve_bytes = 0;
  // Whether a checkpointed operator's recompute gathers its parameters again before its backward gathers
  // them (PaRO's Table 3, DeepSpeed), or one backward gather serves both (PyTorch FSDP1 and FSDP2 skip the
  // unshard in the recomputed forward: the pre-backward hook has unsharded already).
  bool recompute_gathers_again = true;
  // Under sequence parallelism, whether a block's column-parallel projections keep the all-gathered input
  // (PyTorch's DTensor tensor parallelism, as torchtitan applies it) or their shard (Megatron-LM): the
  // transformer generator's TensorParallelStyle.
  bool sequence_parallel_keeps_gathered_inputs = false;
  // Under pipeline parallelism, whether a stage's parameters and gradients stay whole on every GPU through
  // the step, only the optimizer states sharded: PyTorch's pipeline stages with FSDP2 (torchtitan does not
  // reshard after forward when pipelining; the stage defers the reduce-scatter to the last micro-batch) and
  // DeepSpeed's pipeline engine (ZeRO-1 at most). A pipelined stage's plans then keep parameter and
  // gradient scopes N (search_space.hpp: stage_space), gradients held in the reduce dtype.
  bool pipeline_shards_optimizer_only = false;
  // Under pipeline parallelism, whether a stage waits for each activation or gradient it sends to arrive
  // before its next forward or backward (DeepSpeed's PipelineEngine: blocking dist.send) or posts it and goes
  // on (PyTorch's pipelining schedules defer the send waits): pipeline_schedule.hpp's PipelineSends.
  bool pipeline_sends_block = false;
  // Under pipeline parallelism, whether a stage keeps a receive buffer per micro-batch for each activation
  // and gradient it receives, all iteration (PyTorch's pipeline stage): pipeline.hpp's
  // receive_buffers_beyond_activations, priced with the reserve.
  bool pipeline_keeps_receive_buffers = false;
  // Under torch.compile (execution.compile), the share of the eager element-wise kernels' time that the
  // fused kernels still take (norms, activations, residual adds, rotary, casts: Inductor fuses them; the
  // products and attention stay the libraries' kernels). Absent (0): the profile has no compiled mode.
  double compiled_elementwise_share = 0;
  std::vector<PublishedError> published_errors;  // per GPU, sorted by name (empty: none scored)
  // Whether kernels are priced by the GPU's efficiencies (GpuSpec::kernels), with flash attention computing
  // the causal half of the scores; false: every FLOP at the GPU's one achievable fraction.
  bool kernel_pricing() const { return name != RuntimeName::ideal; }
  // Whether it prices torch.compile (execution.compile): kernel pricing and a compiled share of its own.
  bool compiles() const { return kernel_pricing() && compiled_elementwise_share > 0; }
};

// A GPU's kernel efficiencies (cluster presets, `gpu.kernels`), read by every runtime but `ideal`.
struct KernelEfficiency {
  double gemm_fraction = 0;                // of peak, reached by large matrix products
  double gemm_half_rate_flops = 0;         // a product of this many FLOPs reaches half of gemm_fraction
  double attention_forward_fraction = 0;   // of peak, flash attention's forward (causal FLOPs)
  double attention_backward_fraction = 0;  // of peak, its backward (2.5 x the forward's FLOPs: recompute)
  double elementwise_fraction = 0;         // of HBM bandwidth, norms, activations, residual adds
  // Float8 products (execution.float8): how many times faster than the same bf16 product at the same
  // shape; 0: the GPU has no fp8 tensor cores (or none measured).
  double fp8_speedup = 0;
};

// How float8 training scales its casts (execution.float8): not at all (bf16 products), torchao's dynamic
// tensorwise scales (an amax pass before each cast), or TransformerEngine's delayed scaling (scales from an
// amax history, the casts fused into the neighbouring kernels).
enum class Float8Recipe { none, dynamic, delayed };

template <>
struct EnumNames<Float8Recipe> {
  static constexpr NameEntry<Float8Recipe> table[] = {
      {Float8Recipe::none, "none", "bf16 products (default)"},
      {Float8Recipe::dynamic, "dynamic",
       "torchao float8 linear layers, dynamic tensorwise scales (torchtitan): an amax pass and a cast per "
       "operand, priced"},
      {Float8Recipe::delayed, "delayed",
       "TransformerEngine delayed scaling (Composer's amp_fp8, Megatron): casts fused into neighbouring "
       "kernels, not priced"},
  };
};

// What the training script turns on inside the framework (execution.compile, execution.float8): fused
// element-wise kernels, float8 linear layers. Both change only kernel pricing (a framework's profile).
struct KernelOptions {
  bool compile = false;
  Float8Recipe float8 = Float8Recipe::none;
};

}  // namespace shardscope
