// Model: an ordered list of operators with their parameters, FLOPs and activation sizes per sample.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "planner/core/collective_kind.hpp"
#include "planner/core/names.hpp"

namespace shardscope {

enum class OperatorKind { embedding, attention, mlp, moe, linear, norm, head, other };
enum class DType { fp32, fp16, bf16 };

template <>
struct EnumNames<OperatorKind> {
  static constexpr NameEntry<OperatorKind> table[] = {
      {OperatorKind::embedding, "embedding", "token (and learned position) embedding"},
      {OperatorKind::attention, "attention", "one self-attention block"},
      {OperatorKind::mlp, "mlp", "one feed-forward block"},
      {OperatorKind::moe, "moe", "one mixture-of-experts feed-forward block"},
      {OperatorKind::linear, "linear", "a plain linear layer"},
      {OperatorKind::norm, "norm", "a normalisation layer"},
      {OperatorKind::head, "head", "the output projection to the vocabulary"},
      {OperatorKind::other, "other", "anything else"},
  };
};

template <>
struct EnumNames<DType> {
  static constexpr NameEntry<DType> table[] = {
      {DType::bf16, "bf16", "bfloat16 (2 bytes)"},
      {DType::fp16, "fp16", "IEEE half precision (2 bytes)"},
      {DType::fp32, "fp32", "IEEE single precision (4 bytes)"},
  };
};

int bytes_per_element(DType dtype);

// Hand-given costs for the OSDP paper's cost model (cost_model: paper), so its numbers can be
// reproduced exactly: T_i = c(N-1)(alpha + S_i*beta/N) + b*gamma_i, M_i = M_model(/N) + b*M_act + M_extra.
struct PaperOperatorCosts {
  bool given = false;
  double gamma_seconds_per_sample = 0;     // gamma_i
  double parameter_bytes = 0;              // S_i (communicated bytes)
  double model_bytes = 0;                  // M_i^model (all model states of the operator)
  double activation_bytes_per_sample = 0;  // M_i^act
  double extra_bytes = 0;                  // M_i^extra
};

// One matrix product of an operator's forward for one sample: `batch` independent products of an m x k by a
// k x n matrix (m counts the sample's tokens). 2 * batch * m * n * k FLOPs. The validation executor runs
// them; the cost model uses only their FLOP total (forward_flops_per_sample).
struct GemmShape {
  std::string role;  // "qkv", "out", "scores", "values", "up", "gate", "down", "router", "experts", "head"
  std::int64_t batch = 1;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  bool per_sample = false;  // one product per sample (attention scores, values): samples add to the batch,
                            // where other products stack the samples' tokens into m
  double flops() const { return 2.0 * static_cast<double>(batch * m) * static_cast<double>(n * k); }
};

// The mesh group a sliced operator's collective runs in (mesh.hpp): its tensor-parallel group (consecutive
// GPUs of a node), its context-parallel group (the GPUs holding the other chunks of its sequences) or its
// expert-parallel group (the GPUs holding the layer's other experts).
enum class MeshAxis { tensor, context, expert };

template <>
struct EnumNames<MeshAxis> {
  static constexpr NameEntry<MeshAxis> table[] = {
      {MeshAxis::tensor, "tensor", "the GPUs holding the operator's other tensor-parallel slices"},
      {MeshAxis::context, "context", "the GPUs holding the other chunks of its sequences"},
      {MeshAxis::expert, "expert", "the GPUs holding the layer's other experts"},
  };
};

// A collective of an operator's pass among a mesh group (a generated model sliced by a mesh, mesh.hpp): the
// whole buffer is bytes_per_sample times the micro-batch. Blocking ones run on the compute stream between
// the products they join; an overlapped one (ring attention's K/V exchange) runs beside the operator's
// kernels, and only what it takes beyond them is added.
struct TensorCollective {
  CollectiveKind kind = CollectiveKind::all_reduce;
  bool backward = false;  // in the backward pass (else the forward, which recomputation runs again)
  double bytes_per_sample = 0;
  MeshAxis axis = MeshAxis::tensor;
  bool overlapped = false;
  // An all-to-all (expert parallelism's token dispatch or combine: every GPU sends each other GPU of the
  // group its share of bytes_per_sample); `kind` is then not read.
  bool all_to_all = false;
};

// One unit of the plan: the OSDP papers' granularity is one attention block or one MLP block.
struct Operator {
  std::string name;
  OperatorKind kind = OperatorKind::other;
  int layer = -1;               // transformer layer index, -1 for embedding / head
  std::int64_t parameters = 0;  // all parameters held by the operator
  std::int64_t active_parameters =
      0;  // parameters touched per token (MoE: top-k experts); = parameters otherwise
  DType parameter_dtype = DType::bf16;           // dtype of the working copy used in forward/backward
  double forward_flops_per_sample = 0;           // FLOPs for one sample (one sequence) of forward
  double backward_flops_per_sample = 0;          // FLOPs for one sample of backward (default 2x forward)
  std::int64_t activation_bytes_per_sample = 0;  // kept for backward without checkpointing
  std::int64_t checkpoint_bytes_per_sample = 0;  // kept when the operator is checkpointed (its input)
  std::int64_t workspace_bytes_per_sample = 0;   // transient, freed when the operator finishes
  // The head: one gradient of the loss's input (the fp32 logits), counted once in its workspace; an unfused
  // cross-entropy (ExecutionOptions::cross_entropy) holds a second one while its backward runs. 0 elsewhere.
  std::int64_t loss_gradient_bytes_per_sample = 0;
  // Under op-level selective checkpointing (CheckpointPolicy::selective): the bytes kept for backward and
  // the forward FLOPs run again in backward. Negative: not given; the operator is then checkpointed whole
  // (its checkpoint bytes kept, its whole forward recomputed). Generated transformers give both.
  std::int64_t selective_bytes_per_sample = -1;
  double selective_recompute_flops_per_sample = -1;
  bool splittable = true;    // MatMul-like: can be cut into slices (OSDP operator splitting)
  bool trainable = true;     // has gradients and optimizer state
  PaperOperatorCosts paper;  // only for cost_model: paper
  // The forward's matrix products for one sample (generated transformers; empty for operators given as a
  // list). Their FLOPs add up to forward_flops_per_sample. Not part of the model digest.
  std::vector<GemmShape> forward_gemms;
  // Under tensor parallelism (a mesh's slice of a generated transformer): the operator's collectives among
  // the GPUs that hold its other slices, per pass. Empty without.
  std::vector<TensorCollective> tensor_collectives;
  // Under expert parallelism: the operator holds this GPU's experts of its layer, replicated (and sharded)
  // only among the GPUs that hold the same experts, one per expert-parallel group (mesh.hpp).
  bool expert_parallel = false;
};

struct Model {
  std::string name;
  std::int64_t sequence_length = 0;  // tokens per sample
  std::vector<Operator> operators;

  // The integer sums throw std::overflow_error when a total does not fit 64 bits; scenario validation
  // rejects such a model first (overflowing_total), so a validated model never throws.
  std::int64_t parameters() const;         // sum over operators
  std::int64_t active_parameters() const;  // sum of active parameters (MoE)
  std::int64_t trainable_parameters() const;
  double forward_flops_per_sample() const;
  double backward_flops_per_sample() const;
  std::int64_t activation_bytes_per_sample() const;
};

// The first whole-model total that does not fit a 64-bit integer ("total parameters", "total activation
// bytes per sample", ...), or nullopt when every total fits.
std::optional<std::string_view> overflowing_total(const Model& model);

}  // namespace shardscope
