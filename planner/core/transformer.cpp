// Transformer generator: exact parameter counts, FLOPs and activation bytes per operator (OSDP granularity).
#include "planner/core/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "planner/core/transformer_check.hpp"

namespace shardscope {
namespace {

// All arithmetic is done in double and checked before it becomes an integer, so absurd specs give an
// error instead of wrapping around.
std::int64_t checked(double value, const char* what) {
  if (!std::isfinite(value) || value < 0 || value > 4.0e18) {
    // Every operator's sizes grow with the hidden size: it is the field to name.
    throw TransformerSpecError("hidden",
                               std::string(what) + " is out of range (" + std::to_string(value) + ")");
  }
  return static_cast<std::int64_t>(std::llround(value));
}

// A forward matrix product of one sample (sizes are whole numbers: the spec's integers).
GemmShape gemm(const char* role, double batch, double m, double n, double k, bool per_sample = false) {
  return GemmShape{role, std::llround(batch), std::llround(m), std::llround(n), std::llround(k), per_sample};
}

double norm_parameters(NormKind norm, double h) { return norm == NormKind::layernorm ? 2 * h : h; }

// Parameters of one MLP (one expert): weights and biases.
double mlp_weights(const TransformerSpec& spec, double h, double f) {
  return spec.mlp == MlpKind::gated ? 3 * h * f : 2 * h * f;
}
double mlp_biases(const TransformerSpec& spec, double h, double f) {
  if (!spec.mlp_bias) return 0;
  return spec.mlp == MlpKind::gated ? 2 * f + h : f + h;
}

// Element sizes every operator's activation accounting uses.
struct ActivationSizes {
  double tokens = 0;         // s: tokens per sample
  double element_bytes = 0;  // bytes of one activation element (the parameter dtype)
  double mask_bytes = 0;     // bytes per element of a dropout mask (0 without dropout)
  double tensor = 1;         // T: the tensor-parallel degree the operators are sliced for
  bool sequence_parallel = false;
  bool keeps_gathered_inputs = false;  // TensorParallelStyle: the projections keep their gathered input
  double context = 1;                  // C: the context-parallel degree (tokens above is one chunk, s / C)
  double expert = 1;                   // E: the expert-parallel degree (MoE layers' experts divided by E)
  double expert_imbalance = 1;         // the busiest GPU's routed tokens over an even share
  double key_tokens() const { return tokens * context; }  // every chunk's: what attention attends to
  // Bytes of an activation every tensor-parallel GPU holds whole unless sequence parallelism divides it.
  double shared(double bytes) const { return sequence_parallel ? bytes / tensor : bytes; }
  // The whole buffer of one block's tensor-parallel collective: the s x h activation.
  double block_buffer(double h) const { return element_bytes * tokens * h; }
  // The input a block's first projections keep for their weight gradient: divided under sequence
  // parallelism as Megatron-LM keeps it (a shard, gathered again in backward), whole where the runtime
  // keeps the all-gathered input (PyTorch's DTensor plans).
  double projection_input(double bytes) const {
    return sequence_parallel && keeps_gathered_inputs ? bytes : shared(bytes);
  }
  // Sequence parallelism's extra transient: the all-gathered s x h input of a block (none where it is
  // kept: projection_input counts it).
  double gathered(double h) const {
    return sequence_parallel && !keeps_gathered_inputs ? element_bytes * tokens * h : 0;
  }
};

// One block's collectives under tensor parallelism: without sequence parallelism an all-reduce in each
// pass; with it an all-gather and a reduce-scatter in each (Megatron-LM's conjugate pairs; the backward's
// second all-gather of the input, for the weight gradient, overlaps the input-gradient product there).
void add_block_collectives(Operator& op, const ActivationSizes& sizes, double h) {
  if (sizes.tensor <= 1) return;
  const double bytes = sizes.block_buffer(h);
  for (bool backward : {false, true}) {
    if (sizes.sequence_parallel) {
      op.tensor_collectives.push_back({CollectiveKind::all_gather, backward, bytes});
      op.tensor_collectives.push_back({CollectiveKind::reduce_scatter, backward, bytes});
    } else {
      op.tensor_collectives.push_back({CollectiveKind::all_reduce, backward, bytes});
    }
  }
}

// Ring attention's buffers under context parallelism: the K and V chunks in flight, double-buffered (the
// one computed on and the one arriving).
double context_buffers(const ActivationSizes& sizes, double kv_dim) {
  return sizes.context > 1 ? 2 * 2 * sizes.element_bytes * sizes.tokens * kv_dim : 0;
}

// Ring attention under context parallelism: every chunk's K and V pass every GPU of the group beside the
// attention kernels (an all-gather's bytes, C - 1 steps of one chunk each); backward passes K and V again
// and returns their gradients (a reduce-scatter's).
void add_context_exchange(Operator& att, const ActivationSizes& sizes, double kv_dim) {
  if (sizes.context <= 1) return;
  const double bytes = 2 * sizes.element_bytes * sizes.key_tokens() * kv_dim;  // K and V of every chunk
  att.tensor_collectives.push_back({CollectiveKind::all_gather, false, bytes, MeshAxis::context, true});
  att.tensor_collectives.push_back({CollectiveKind::all_gather, true, bytes, MeshAxis::context, true});
  att.tensor_collectives.push_back({CollectiveKind::reduce_scatter, true, bytes, MeshAxis::context, true});
}

// Rows of a vocabulary-parallel table on one GPU (Megatron pads the vocabulary to a multiple of the degree).
double vocab_rows(const TransformerSpec& spec, const ActivationSizes& sizes) {
  return std::ceil(static_cast<double>(spec.vocab) / sizes.tensor);
}

// Op-level selective checkpointing as torchtitan's "op" policy applies it to one checkpointed block (the
// attention, then the MLP): the block's matrix products, counted in forward order (Q, K, V and O as
// separate products, then the MLP's gate, up and down; with or without bias alike), keep their outputs
// when odd-numbered and are recomputed in backward when even-numbered; the flash-attention kernel keeps
// its output and log-sum-exp; norms, rotary, activations and residual adds are recomputed (element-wise,
// no FLOPs counted); the attention keeps the block's input. Embedding and head are not checkpointed.
class SelectiveTally {
 public:
  SelectiveTally(const ActivationSizes& sizes, int products_before)
      : sizes_(sizes), products_(products_before) {}
  // A product over every token of a sample: `inputs` by `outputs` features, `copies` times (MoE's k).
  void product(double inputs, double outputs, double copies = 1) {
    ++products_;
    if (products_ % 2 == 1) {
      kept_bytes_ += copies * sizes_.element_bytes * sizes_.tokens * outputs;
    } else {
      recompute_flops_ += copies * 2 * sizes_.tokens * inputs * outputs;
    }
  }
  void keep(double bytes) { kept_bytes_ += bytes; }
  void recompute(double flops) { recompute_flops_ += flops; }
  void write(Operator& op) const {
    op.selective_bytes_per_sample = checked(kept_bytes_, "selective checkpoint");
    op.selective_recompute_flops_per_sample = recompute_flops_;
  }

 private:
  const ActivationSizes& sizes_;
  int products_;
  double kept_bytes_ = 0;
  double recompute_flops_ = 0;
};

// The products of layer `layer`'s attention: a resize where the width changes, then Q, K, V and O.
int attention_products(const TransformerSpec& spec, int layer) {
  return (layer > 0 && layer_hidden_size(spec, layer - 1) != layer_hidden_size(spec, layer) ? 1 : 0) + 4;
}

void set_selective_attention(Operator& att, const TransformerSpec& spec, const ActivationSizes& sizes,
                             double h_prev, double h, double q_dim, double kv_dim) {
  // q_dim and kv_dim are one GPU's share under a tensor slice (column-parallel outputs, row-parallel input).
  SelectiveTally tally(sizes, 0);
  tally.keep(sizes.shared(sizes.element_bytes * sizes.tokens * h_prev));  // the block's input
  if (h_prev != h) tally.product(h_prev, h);
  tally.product(h, q_dim);
  tally.product(h, kv_dim);
  tally.product(h, kv_dim);
  if (spec.flash_attention) {
    tally.keep(sizes.element_bytes * sizes.tokens * q_dim + 4 * spec.heads / sizes.tensor * sizes.tokens);
  } else {
    tally.recompute(4 * sizes.tokens * sizes.key_tokens() * q_dim);  // scores and weighted sum, rebuilt
  }
  tally.product(q_dim, h);
  tally.write(att);
}

// f is one GPU's share of the feed-forward width under a tensor slice.
void set_selective_mlp(Operator& mlp, const TransformerSpec& spec, const ActivationSizes& sizes, int layer,
                       double h, double f) {
  SelectiveTally tally(sizes, attention_products(spec, layer));
  const double copies = spec.experts > 0 ? spec.experts_per_token : 1;
  if (spec.experts > 0) tally.product(h, static_cast<double>(spec.experts));  // the router
  if (spec.mlp == MlpKind::gated) tally.product(h, f, copies);
  tally.product(h, f, copies);
  tally.product(f, h, copies);
  tally.write(mlp);
}

// Not checkpointed under the selective policy: everything kept, nothing recomputed.
void set_selective_whole(Operator& op) {
  op.selective_bytes_per_sample = op.activation_bytes_per_sample;
  op.selective_recompute_flops_per_sample = 0;
}

// Embedding: token table (+ learned position table). A lookup: no matmul FLOPs.
Operator embedding_operator(const TransformerSpec& spec, const ActivationSizes& sizes) {
  const double h = layer_hidden_size(spec, 0);
  const double s = sizes.tokens;
  const double positions =
      static_cast<double>(spec.max_positions > 0 ? spec.max_positions : spec.sequence_length);
  Operator op;
  op.name = "embedding";
  op.kind = OperatorKind::embedding;
  double params = vocab_rows(spec, sizes) * h;
  if (spec.positions == PositionKind::learned) params += positions * h;  // replicated under a slice
  op.parameters = checked(params, "embedding parameters");
  op.active_parameters = op.parameters;
  op.parameter_dtype = spec.parameter_dtype;
  op.forward_flops_per_sample = 0;
  op.backward_flops_per_sample = 0;
  op.activation_bytes_per_sample =
      checked(sizes.shared(sizes.mask_bytes * s * h), "embedding activations");  // dropout mask
  op.checkpoint_bytes_per_sample = checked(8 * s, "embedding checkpoint");       // int64 token ids
  op.workspace_bytes_per_sample = checked(sizes.element_bytes * s * h, "embedding workspace");
  op.splittable = true;
  if (sizes.tensor > 1) {  // each GPU's rows give a partial sum of the output: reduced forward
    const double bytes = sizes.block_buffer(h);
    if (sizes.sequence_parallel) {
      op.tensor_collectives.push_back({CollectiveKind::reduce_scatter, false, bytes});
      op.tensor_collectives.push_back({CollectiveKind::all_gather, true, bytes});
    } else {
      op.tensor_collectives.push_back({CollectiveKind::all_reduce, false, bytes});
    }
  }
  set_selective_whole(op);
  return op;
}

// Under expert parallelism the MLP block's norm and router, replicated on every GPU, ride with the attention
// operator before them: their parameters, the router's product (its FLOPs outside the checkpoint's
// recompute), the norm's input, the router's input and its fp32 scores kept (the block's dropout mask is
// the experts operator's, on its output).
void add_expert_router(Operator& att, const TransformerSpec& spec, const ActivationSizes& sizes, double h) {
  const double s = sizes.tokens;
  const double experts = spec.experts;
  att.parameters += checked(norm_parameters(spec.norm, h) + h * experts, "router parameters");
  att.active_parameters = att.parameters;
  att.forward_flops_per_sample += 2 * s * h * experts;
  att.forward_gemms.push_back(gemm("router", 1, s, experts, h));
  const std::int64_t kept = checked(2 * sizes.element_bytes * s * h + 4 * s * experts, "router activations");
  att.activation_bytes_per_sample += kept;
  att.selective_bytes_per_sample += kept;
  att.workspace_bytes_per_sample += checked(sizes.element_bytes * s * h, "router workspace");
}

// Attention block of `layer`: input norm, Q/K/V/O projections (+ biases), and, where the width changes
// from the previous layer (inconsistent models), a projection h_prev -> h with bias.
Operator attention_operator(const TransformerSpec& spec, const ActivationSizes& sizes, int layer) {
  const double h = layer_hidden_size(spec, layer);
  const double h_prev = layer == 0 ? h : layer_hidden_size(spec, layer - 1);
  const double s = sizes.tokens;
  const double elem = sizes.element_bytes;
  const int kv_heads = spec.kv_heads == 0 ? spec.heads : spec.kv_heads;
  const double head_dim = spec.head_dim > 0 ? static_cast<double>(spec.head_dim) : h / spec.heads;
  // One GPU's heads and projection widths under a tensor slice (the whole model at degree 1).
  const double t = sizes.tensor;
  const double heads = spec.heads / t;
  const double q_dim = head_dim * spec.heads / t;
  const double kv_dim = head_dim * kv_heads / t;
  Operator att;
  att.name = "layer" + std::to_string(layer) + ".attention";
  att.kind = OperatorKind::attention;
  att.layer = layer;
  const double att_weights = h * q_dim + 2 * h * kv_dim + q_dim * h;
  const double att_biases = spec.attention_bias ? q_dim + 2 * kv_dim + h : 0;  // the output's: replicated
  const double resize = h_prev != h ? h_prev * h + h : 0;
  att.parameters =
      checked(norm_parameters(spec.norm, h) + att_weights + att_biases + resize, "attention parameters");
  att.active_parameters = att.parameters;
  att.parameter_dtype = spec.parameter_dtype;
  // 2 FLOPs per multiply-add: projections 2*s*weights; scores QK^T and weighted sum AV 2*s*s*q_dim each
  // (under context parallelism s queries of the chunk against s_kv keys of the whole sequence).
  const double s_kv = sizes.key_tokens();
  att.forward_flops_per_sample =
      2 * s * (att_weights + (h_prev != h ? h_prev * h : 0)) + 4 * s * s_kv * q_dim;
  att.backward_flops_per_sample = 2 * att.forward_flops_per_sample;
  if (h_prev != h) att.forward_gemms.push_back(gemm("resize", 1, s, h, h_prev));
  att.forward_gemms.push_back(gemm("qkv", 1, s, q_dim + 2 * kv_dim, h));
  att.forward_gemms.push_back(gemm("scores", heads, s, s_kv, head_dim, true));  // Q K^T per head
  att.forward_gemms.push_back(gemm("values", heads, s, head_dim, s_kv, true));  // softmax(.) V per head
  att.forward_gemms.push_back(gemm("out", 1, s, h, q_dim));
  // Korthikanti et al. 2022 (no tensor parallelism), per sample: norm input 2sh, QKV input 2sh,
  // Q 2s*q_dim, K and V 2s*kv_dim each, output-projection input 2s*q_dim, dropout mask sh (= 11sh + 2sh
  // for GPT); without flash attention the s x s scores per head: the softmax output (2as^2 in 16 bits)
  // and with dropout its mask and output (as^2 + 2as^2: 5as^2 for GPT); with flash attention only the
  // fp32 log-sum-exp statistics, 4as bytes whatever the activation type (the scores are recomputed).
  // Under a tensor slice the per-head and projection terms are one GPU's share; the norm and QKV inputs
  // and the dropout mask are whole unless sequence parallelism divides them (Korthikanti et al., 10sbh).
  const double score_elements = heads * s * s_kv;
  const double score_bytes =
      spec.flash_attention
          ? 4 * heads * s
          : elem * score_elements + (spec.dropout ? (sizes.mask_bytes + elem) * score_elements : 0);
  att.activation_bytes_per_sample =
      checked(sizes.shared(elem * s * h + sizes.mask_bytes * s * h) + sizes.projection_input(elem * s * h) +
                  elem * s * q_dim + 2 * elem * s * kv_dim + elem * s * q_dim + score_bytes,
              "attention activations");
  att.checkpoint_bytes_per_sample = checked(sizes.shared(elem * s * h_prev), "attention checkpoint");
  // Largest transient: fp32 score matrix without flash attention, else the fused QKV output; with
  // sequence parallelism also the all-gathered input.
  att.workspace_bytes_per_sample =
      checked((spec.flash_attention ? elem * s * (q_dim + 2 * kv_dim) : 4 * heads * s * s_kv) +
                  sizes.gathered(h) + context_buffers(sizes, kv_dim),
              "attention workspace");
  set_selective_attention(att, spec, sizes, h_prev, h, q_dim, kv_dim);
  add_block_collectives(att, sizes, h);
  add_context_exchange(att, sizes, kv_dim);
  if (sizes.expert > 1 && spec.experts > 0) add_expert_router(att, spec, sizes, h);
  return att;
}

// Kept per routed expert: the intermediate tensors (GeLU: its input and output, 2sf each; gated: gate, up
// and their product, 2sf each).
double per_expert_activation_bytes(const TransformerSpec& spec, const ActivationSizes& sizes, double f) {
  const double elem = sizes.element_bytes;
  const double s = sizes.tokens;
  return spec.mlp == MlpKind::gated ? 3 * elem * s * f : 2 * elem * s * f;
}

// Dense feed-forward: kind, parameters, forward FLOPs and kept activations.
void set_dense_mlp(Operator& mlp, const TransformerSpec& spec, const ActivationSizes& sizes, double h,
                   double f) {
  const double s = sizes.tokens;
  const double expert_params = mlp_weights(spec, h, f) + mlp_biases(spec, h, f);
  mlp.kind = OperatorKind::mlp;
  mlp.parameters = checked(norm_parameters(spec.norm, h) + expert_params, "mlp parameters");
  mlp.active_parameters = mlp.parameters;
  mlp.forward_flops_per_sample = 2 * s * mlp_weights(spec, h, f);
  mlp.forward_gemms.push_back(gemm("up", 1, s, f, h));
  if (spec.mlp == MlpKind::gated) mlp.forward_gemms.push_back(gemm("gate", 1, s, f, h));
  mlp.forward_gemms.push_back(gemm("down", 1, s, h, f));
  // Kept once: norm input 2sh and up-projection input 2sh. GPT (f = 4h): 2sh + 2sh + 8sh + 8sh + sh =
  // 19sh + 2sh (norm), as in Korthikanti et al.
  mlp.activation_bytes_per_sample = checked(
      sizes.shared(sizes.element_bytes * s * h + sizes.mask_bytes * s * h) +
          sizes.projection_input(sizes.element_bytes * s * h) + per_expert_activation_bytes(spec, sizes, f),
      "mlp activations");
}

// MoE feed-forward: `experts` MLPs and a router, of which `experts_per_token` run per token.
void set_moe(Operator& mlp, const TransformerSpec& spec, const ActivationSizes& sizes, double h, double f) {
  const double s = sizes.tokens;
  const double norm = norm_parameters(spec.norm, h);
  const double expert_params = mlp_weights(spec, h, f) + mlp_biases(spec, h, f);
  const double router = h * spec.experts;
  mlp.kind = OperatorKind::moe;
  mlp.parameters = checked(norm + router + spec.experts * expert_params, "moe parameters");
  mlp.active_parameters =
      checked(norm + router + spec.experts_per_token * expert_params, "moe active parameters");
  mlp.forward_flops_per_sample = 2 * s * (router + spec.experts_per_token * mlp_weights(spec, h, f));
  // Each token visits experts_per_token experts: as many token-by-expert products as a dense MLP's, k times.
  mlp.forward_gemms.push_back(gemm("router", 1, s, spec.experts, h));
  mlp.forward_gemms.push_back(gemm("up", spec.experts_per_token, s, f, h));
  if (spec.mlp == MlpKind::gated) mlp.forward_gemms.push_back(gemm("gate", spec.experts_per_token, s, f, h));
  mlp.forward_gemms.push_back(gemm("down", spec.experts_per_token, s, h, f));
  // Kept once: norm input 2sh, up-projection input 2sh and the fp32 router scores, 4s per expert.
  mlp.activation_bytes_per_sample =
      checked(sizes.shared(sizes.element_bytes * s * h + 4 * s * spec.experts + sizes.mask_bytes * s * h) +
                  sizes.projection_input(sizes.element_bytes * s * h) +
                  spec.experts_per_token * per_expert_activation_bytes(spec, sizes, f),
              "moe activations");
}

// One GPU's experts under expert parallelism (the norm and router ride with the attention): experts / E
// MLPs, run on the tokens routed to them from the GPUs of the group, k per token of each on average and
// `expert_imbalance` times that on the busiest GPU. Kept: the tokens received (each expert's input for its
// weight gradient) and each routed expert's intermediates; transient: the intermediates and the dispatch
// buffers sent and received. Each pass dispatches the tokens and combines the results (an all-to-all
// each way; again in backward, with the gradients).
void set_expert_parallel_moe(Operator& mlp, const TransformerSpec& spec, const ActivationSizes& sizes,
                             double h, double f) {
  const double s = sizes.tokens;
  const double k = spec.experts_per_token;
  const double routed = k * sizes.expert_imbalance;  // token copies the busiest GPU takes per token
  const double expert_params = mlp_weights(spec, h, f) + mlp_biases(spec, h, f);
  mlp.kind = OperatorKind::moe;
  mlp.expert_parallel = true;
  mlp.parameters = checked(spec.experts / sizes.expert * expert_params, "moe parameters");
  mlp.active_parameters = std::min(mlp.parameters, checked(k * expert_params, "moe active parameters"));
  mlp.forward_flops_per_sample = 2 * s * routed * mlp_weights(spec, h, f);
  const double tokens = std::ceil(s * sizes.expert_imbalance);
  mlp.forward_gemms.push_back(gemm("up", k, tokens, f, h));
  if (spec.mlp == MlpKind::gated) mlp.forward_gemms.push_back(gemm("gate", k, tokens, f, h));
  mlp.forward_gemms.push_back(gemm("down", k, tokens, h, f));
  const double exchanged = sizes.element_bytes * s * h * routed;
  mlp.activation_bytes_per_sample =
      checked(exchanged + routed * per_expert_activation_bytes(spec, sizes, f) + sizes.mask_bytes * s * h,
              "moe activations");
  mlp.checkpoint_bytes_per_sample = checked(sizes.element_bytes * s * h + 12 * s * k, "moe checkpoint");
  mlp.workspace_bytes_per_sample =
      checked(sizes.element_bytes * s * f * routed + 2 * exchanged, "moe workspace");
  for (const bool backward : {false, true}) {
    for (int exchange = 0; exchange < 2; ++exchange) {  // dispatch, combine
      TensorCollective a2a{CollectiveKind::all_gather, backward, exchanged, MeshAxis::expert};
      a2a.all_to_all = true;
      mlp.tensor_collectives.push_back(a2a);
    }
  }
}

// MLP block of `layer`: input norm, up (+ gate) and down projections (+ biases); MoE: experts plus a router.
// Under a tensor slice f is one GPU's share of the feed-forward width (each expert's alike).
Operator mlp_operator(const TransformerSpec& spec, const ActivationSizes& sizes, int layer) {
  const double h = layer_hidden_size(spec, layer);
  const double f =
      (spec.ffn_hidden > 0 && spec.layer_hidden.empty() ? static_cast<double>(spec.ffn_hidden) : 4 * h) /
      sizes.tensor;
  const double s = sizes.tokens;
  Operator mlp;
  mlp.name = "layer" + std::to_string(layer) + ".mlp";
  mlp.layer = layer;
  mlp.parameter_dtype = spec.parameter_dtype;
  if (spec.experts > 0 && sizes.expert > 1) {
    set_expert_parallel_moe(mlp, spec, sizes, h, f);
    mlp.backward_flops_per_sample = 2 * mlp.forward_flops_per_sample;
    set_selective_whole(mlp);
    return mlp;
  }
  if (spec.experts > 0) {
    set_moe(mlp, spec, sizes, h, f);
  } else {
    set_dense_mlp(mlp, spec, sizes, h, f);
  }
  mlp.backward_flops_per_sample = 2 * mlp.forward_flops_per_sample;
  mlp.checkpoint_bytes_per_sample = checked(sizes.shared(sizes.element_bytes * s * h), "mlp checkpoint");
  mlp.workspace_bytes_per_sample = checked(
      sizes.element_bytes * s * f * (spec.experts > 0 ? spec.experts_per_token : 1) + sizes.gathered(h),
      "mlp workspace");
  set_selective_mlp(mlp, spec, sizes, layer, h, f);
  add_block_collectives(mlp, sizes, h);
  return mlp;
}

// Head: final norm and the output projection (its weights are the embedding's when tied).
Operator head_operator(const TransformerSpec& spec, const ActivationSizes& sizes) {
  const double h = layer_hidden_size(spec, spec.layers - 1);
  const double s = sizes.tokens;
  const double vocab = vocab_rows(spec, sizes);  // one GPU's rows under a tensor slice
  Operator op;
  op.name = "head";
  op.kind = OperatorKind::head;
  op.parameters =
      checked(norm_parameters(spec.norm, h) + (spec.tied_embeddings ? 0 : vocab * h), "head parameters");
  op.active_parameters = op.parameters;
  op.parameter_dtype = spec.parameter_dtype;
  op.forward_flops_per_sample = 2 * s * h * vocab;
  op.forward_gemms.push_back(gemm("head", 1, s, vocab, h));
  op.backward_flops_per_sample = 2 * op.forward_flops_per_sample;
  // Final norm input 2sh, projection input 2sh, fp32 logits for the cross-entropy 4sV.
  op.activation_bytes_per_sample =
      checked(sizes.shared(sizes.element_bytes * s * h) +
                  sizes.projection_input(sizes.element_bytes * s * h) + 4 * s * vocab,
              "head activations");
  op.checkpoint_bytes_per_sample = checked(sizes.shared(sizes.element_bytes * s * h), "head checkpoint");
  // The loss's gradient with respect to the fp32 logits, written during the head's backward.
  op.workspace_bytes_per_sample = checked(4 * s * vocab, "head workspace");
  op.loss_gradient_bytes_per_sample = op.workspace_bytes_per_sample;
  op.workspace_bytes_per_sample += static_cast<std::int64_t>(sizes.gathered(h));
  set_selective_whole(op);
  if (sizes.tensor > 1) {
    // The input enters whole (all-gathered under sequence parallelism) and its gradient is reduced; the
    // vocabulary-parallel cross-entropy all-reduces each token's maximum, sum of exponentials and target
    // logit (fp32) across the slices.
    const double bytes = sizes.block_buffer(h);
    if (sizes.sequence_parallel) {
      op.tensor_collectives.push_back({CollectiveKind::all_gather, false, bytes});
      op.tensor_collectives.push_back({CollectiveKind::reduce_scatter, true, bytes});
    } else {
      op.tensor_collectives.push_back({CollectiveKind::all_reduce, true, bytes});
    }
    for (int reduction = 0; reduction < 3; ++reduction)
      op.tensor_collectives.push_back({CollectiveKind::all_reduce, false, 4 * s});
  }
  return op;
}

}  // namespace

Model generate_transformer(const TransformerSpec& spec, const TensorSlice& slice,
                           const TensorParallelStyle& style) {
  check_transformer_spec(spec);
  check_transformer_slice(spec, slice);
  ActivationSizes sizes;
  sizes.tokens = static_cast<double>(spec.sequence_length / slice.context);
  sizes.context = slice.context;
  sizes.element_bytes = bytes_per_element(spec.parameter_dtype);
  sizes.mask_bytes = spec.dropout ? 1.0 : 0.0;
  sizes.tensor = slice.degree;
  sizes.sequence_parallel = slice.sequence_parallel;
  sizes.keeps_gathered_inputs = style.keeps_gathered_inputs;
  sizes.expert = slice.expert;
  sizes.expert_imbalance = slice.expert_imbalance;

  Model model;
  model.name = spec.name.empty() ? descriptive_name(spec) : spec.name;
  model.sequence_length = spec.sequence_length / slice.context;  // a sample is one chunk
  model.operators.push_back(embedding_operator(spec, sizes));
  for (int layer = 0; layer < spec.layers; ++layer) {
    model.operators.push_back(attention_operator(spec, sizes, layer));
    model.operators.push_back(mlp_operator(spec, sizes, layer));
  }
  model.operators.push_back(head_operator(spec, sizes));
  return model;
}

}  // namespace shardscope
