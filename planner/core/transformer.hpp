// Transformer generator: architecture numbers -> Model at the OSDP granularity (embedding, per layer
// attention + MLP, head).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/core/model.hpp"

namespace shardscope {

enum class MlpKind { gelu, gated };  // gated = SwiGLU (llama, mistral, mixtral)
enum class NormKind { layernorm, rmsnorm };
enum class PositionKind { learned, rotary };

template <>
struct EnumNames<MlpKind> {
  static constexpr NameEntry<MlpKind> table[] = {
      {MlpKind::gelu, "gelu", "two matrices with a GELU between"},
      {MlpKind::gated, "gated", "SwiGLU: three matrices (llama, mistral, mixtral)"},
  };
};

template <>
struct EnumNames<NormKind> {
  static constexpr NameEntry<NormKind> table[] = {
      {NormKind::layernorm, "layernorm", "LayerNorm (scale and bias)"},
      {NormKind::rmsnorm, "rmsnorm", "RMSNorm (scale only)"},
  };
};

template <>
struct EnumNames<PositionKind> {
  static constexpr NameEntry<PositionKind> table[] = {
      {PositionKind::learned, "learned", "a learned position embedding"},
      {PositionKind::rotary, "rotary", "rotary position embedding (no parameters)"},
  };
};

struct TransformerSpec {
  std::string name;
  int layers = 0;
  std::int64_t hidden = 0;
  std::vector<std::int64_t>
      layer_hidden;  // per-layer hidden sizes ("inconsistent" models); empty = all `hidden`
  int heads = 0;
  int kv_heads = 0;             // 0 = heads (multi-head attention)
  std::int64_t head_dim = 0;    // 0 = hidden / heads
  std::int64_t ffn_hidden = 0;  // 0 = 4 * hidden
  std::int64_t vocab = 0;
  std::int64_t sequence_length = 0;
  std::int64_t max_positions = 0;  // learned position table size (0 = sequence_length)
  MlpKind mlp = MlpKind::gelu;
  NormKind norm = NormKind::layernorm;
  PositionKind positions = PositionKind::learned;
  bool attention_bias = true;
  bool mlp_bias = true;
  bool tied_embeddings = true;
  bool parallel_residual = false;
  int experts = 0;              // MoE: experts per layer (0 = dense)
  int experts_per_token = 0;    // MoE: top-k
  bool flash_attention = true;  // activation accounting: no s^2 attention scores kept
  bool dropout = true;          // activation accounting: 1-byte dropout masks are kept (GPT-style)
  DType parameter_dtype = DType::bf16;
};

// What generate_transformer throws for a spec it cannot build, with the spec field at fault ("heads",
// "kv_heads", "hidden", "layers", ...), so that a reader can point at the line that set it.
class TransformerSpecError : public std::invalid_argument {
 public:
  TransformerSpecError(std::string field, const std::string& message)
      : std::invalid_argument(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// The hidden size of layer `layer`: spec.hidden, or its entry of layer_hidden.
double layer_hidden_size(const TransformerSpec& spec, int layer);

// A name from the spec's shape for a model given without one: "transformer-48x1536" (layers x hidden),
// "transformer-96x1024-4096" when the layers' widths range from 1024 to 4096, "-moe8" for 8 experts.
std::string descriptive_name(const TransformerSpec& spec);

// A tensor-parallel slice (Megatron-LM's 1-D scheme): of `degree` GPUs, the operators one holds and runs.
// Attention: Q, K and V column-parallel (heads and KV heads divided), the output projection row-parallel;
// MLP: up and gate column-parallel, down row-parallel (each expert alike); embedding and head
// vocabulary-parallel (ceil(vocab / degree) rows each); norms and the router replicated. Without sequence
// parallelism each block's forward ends in an all-reduce of its output and its backward in one of its
// input's gradient; with it, an all-gather before the block and a reduce-scatter after it, in both passes,
// and the norms' and dropouts' activations are divided by the degree too (Korthikanti et al. 2022).
// Context parallelism (`context` C) cuts every sequence into C chunks, one per GPU of a context-parallel
// group: each GPU's operators run on s / C tokens, a sample of the sliced model is one chunk, and the
// attention sees every chunk's keys and values through a ring exchange beside its kernels (all-gathers of
// K and V forward; again with reduce-scatters of their gradients backward), as ring attention runs it.
// Expert parallelism (`expert` E, MoE models) gives each GPU of an expert-parallel group experts / E of
// every layer's experts: the layer's norm and router stay replicated (they ride with the attention
// operator, which precedes them), and the experts operator sends each token's hidden state to the GPUs of
// its top-k experts and back (an all-to-all each way per pass: dispatch and combine), its FLOPs those of
// the tokens it receives, times `expert_imbalance` for the busiest GPU of a group.
struct TensorSlice {
  int degree = 1;
  bool sequence_parallel = false;
  int context = 1;
  int expert = 1;
  double expert_imbalance = 1.0;  // tokens the busiest GPU's experts receive over an even share (>= 1)
  bool whole() const { return degree == 1 && !sequence_parallel && context == 1 && expert == 1; }
};

// How the runtime runs tensor parallelism, where frameworks differ. keeps_gathered_inputs: under sequence
// parallelism a block's column-parallel projections keep the all-gathered s x h input for their weight
// gradient (PyTorch's DTensor plans: PrepareModuleInput redistributes the block's input to Replicate and
// the linears save it) instead of their shard, gathered again in backward (Megatron-LM, Korthikanti et
// al.). The runtime profile's `sequence_parallel_keeps_gathered_inputs`.
struct TensorParallelStyle {
  bool keeps_gathered_inputs = false;
};

// Builds the 2*layers + 2 operator model, named spec.name or, when that is empty, descriptive_name(spec),
// as one GPU of the slice holds it. Throws TransformerSpecError on inconsistent numbers, naming the spec
// field, or "tensor" / "sequence_parallel" when the slice does not divide the model.
Model generate_transformer(const TransformerSpec& spec, const TensorSlice& slice = {},
                           const TensorParallelStyle& style = {});

}  // namespace shardscope
