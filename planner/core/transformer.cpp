// Transformer generator: exact parameter counts, FLOPs and activation bytes per operator (OSDP granularity).
#include "planner/core/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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

void require(bool ok, const char* field, const std::string& message) {
  if (!ok) throw TransformerSpecError(field, message);
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
};

double hidden_of(const TransformerSpec& spec, int layer) {
  return static_cast<double>(spec.layer_hidden.empty() ? spec.hidden
                                                       : spec.layer_hidden[static_cast<std::size_t>(layer)]);
}

void validate(const TransformerSpec& spec) {
  require(spec.layers > 0 && spec.layers <= 100000, "layers", "layers must be between 1 and 100000");
  require(spec.heads > 0 && spec.heads <= 100000, "heads", "heads must be between 1 and 100000");
  require(spec.vocab > 0 && spec.vocab <= 100000000, "vocab", "vocab must be between 1 and 10^8");
  require(spec.sequence_length > 0 && spec.sequence_length <= 10000000, "sequence_length",
          "sequence_length must be between 1 and 10^7");
  require(spec.layer_hidden.empty() || static_cast<int>(spec.layer_hidden.size()) == spec.layers,
          "layer_hidden",
          "layer_hidden must list one hidden size per layer (" + std::to_string(spec.layers) + ")");
  const int kv_heads = spec.kv_heads == 0 ? spec.heads : spec.kv_heads;
  require(
      kv_heads > 0 && spec.heads % kv_heads == 0, "kv_heads",
      "kv_heads (" + std::to_string(kv_heads) + ") must divide heads (" + std::to_string(spec.heads) + ")");
  require(spec.experts >= 0 && spec.experts_per_token >= 0 && spec.experts_per_token <= spec.experts,
          "experts_per_token", "experts_per_token must be between 0 and experts");
  require(spec.experts == 0 || spec.experts_per_token > 0, "experts_per_token",
          "an MoE model needs experts_per_token >= 1");
  for (int l = 0; l < spec.layers; ++l) {
    const double h = hidden_of(spec, l);
    require(h > 0 && h <= 1048576, "hidden",
            "hidden size of layer " + std::to_string(l) + " must be between 1 and 2^20");
    if (spec.head_dim == 0) {
      require(static_cast<std::int64_t>(h) % spec.heads == 0, "heads",
              "hidden size " + std::to_string(static_cast<std::int64_t>(h)) +
                  " must be a multiple of heads (" + std::to_string(spec.heads) + ")");
    }
  }
  require(spec.head_dim >= 0, "head_dim", "head_dim must not be negative");
  require(spec.ffn_hidden >= 0, "ffn_hidden", "ffn_hidden must not be negative");
  require(spec.max_positions >= 0, "max_positions", "max_positions must not be negative");
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
  return (layer > 0 && hidden_of(spec, layer - 1) != hidden_of(spec, layer) ? 1 : 0) + 4;
}

void set_selective_attention(Operator& att, const TransformerSpec& spec, const ActivationSizes& sizes,
                             double h_prev, double h, double q_dim, double kv_dim) {
  SelectiveTally tally(sizes, 0);
  tally.keep(sizes.element_bytes * sizes.tokens * h_prev);  // the block's input
  if (h_prev != h) tally.product(h_prev, h);
  tally.product(h, q_dim);
  tally.product(h, kv_dim);
  tally.product(h, kv_dim);
  if (spec.flash_attention) {
    tally.keep(sizes.element_bytes * sizes.tokens * q_dim + 4 * spec.heads * sizes.tokens);
  } else {
    tally.recompute(4 * sizes.tokens * sizes.tokens * q_dim);  // scores and weighted sum, rebuilt
  }
  tally.product(q_dim, h);
  tally.write(att);
}

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
  const double h = hidden_of(spec, 0);
  const double s = sizes.tokens;
  const double positions =
      static_cast<double>(spec.max_positions > 0 ? spec.max_positions : spec.sequence_length);
  Operator op;
  op.name = "embedding";
  op.kind = OperatorKind::embedding;
  double params = static_cast<double>(spec.vocab) * h;
  if (spec.positions == PositionKind::learned) params += positions * h;
  op.parameters = checked(params, "embedding parameters");
  op.active_parameters = op.parameters;
  op.parameter_dtype = spec.parameter_dtype;
  op.forward_flops_per_sample = 0;
  op.backward_flops_per_sample = 0;
  op.activation_bytes_per_sample =
      checked(sizes.mask_bytes * s * h, "embedding activations");           // dropout mask
  op.checkpoint_bytes_per_sample = checked(8 * s, "embedding checkpoint");  // int64 token ids
  op.workspace_bytes_per_sample = checked(sizes.element_bytes * s * h, "embedding workspace");
  op.splittable = true;
  set_selective_whole(op);
  return op;
}

// Attention block of `layer`: input norm, Q/K/V/O projections (+ biases), and, where the width changes
// from the previous layer (inconsistent models), a projection h_prev -> h with bias.
Operator attention_operator(const TransformerSpec& spec, const ActivationSizes& sizes, int layer) {
  const double h = hidden_of(spec, layer);
  const double h_prev = layer == 0 ? h : hidden_of(spec, layer - 1);
  const double s = sizes.tokens;
  const double elem = sizes.element_bytes;
  const int kv_heads = spec.kv_heads == 0 ? spec.heads : spec.kv_heads;
  const double head_dim = spec.head_dim > 0 ? static_cast<double>(spec.head_dim) : h / spec.heads;
  const double q_dim = head_dim * spec.heads;
  const double kv_dim = head_dim * kv_heads;
  Operator att;
  att.name = "layer" + std::to_string(layer) + ".attention";
  att.kind = OperatorKind::attention;
  att.layer = layer;
  const double att_weights = h * q_dim + 2 * h * kv_dim + q_dim * h;
  const double att_biases = spec.attention_bias ? q_dim + 2 * kv_dim + h : 0;
  const double resize = h_prev != h ? h_prev * h + h : 0;
  att.parameters =
      checked(norm_parameters(spec.norm, h) + att_weights + att_biases + resize, "attention parameters");
  att.active_parameters = att.parameters;
  att.parameter_dtype = spec.parameter_dtype;
  // 2 FLOPs per multiply-add: projections 2*s*weights; scores QK^T and weighted sum AV 2*s*s*q_dim each.
  att.forward_flops_per_sample = 2 * s * (att_weights + (h_prev != h ? h_prev * h : 0)) + 4 * s * s * q_dim;
  att.backward_flops_per_sample = 2 * att.forward_flops_per_sample;
  if (h_prev != h) att.forward_gemms.push_back(gemm("resize", 1, s, h, h_prev));
  att.forward_gemms.push_back(gemm("qkv", 1, s, q_dim + 2 * kv_dim, h));
  att.forward_gemms.push_back(gemm("scores", spec.heads, s, s, head_dim, true));  // Q K^T per head
  att.forward_gemms.push_back(gemm("values", spec.heads, s, head_dim, s, true));  // softmax(.) V per head
  att.forward_gemms.push_back(gemm("out", 1, s, h, q_dim));
  // Korthikanti et al. 2022 (no tensor parallelism), per sample: norm input 2sh, QKV input 2sh,
  // Q 2s*q_dim, K and V 2s*kv_dim each, output-projection input 2s*q_dim, dropout mask sh (= 11sh + 2sh
  // for GPT); without flash attention the s x s scores per head: the softmax output (2as^2 in 16 bits)
  // and with dropout its mask and output (as^2 + 2as^2: 5as^2 for GPT); with flash attention only the
  // fp32 log-sum-exp statistics, 4as bytes whatever the activation type (the scores are recomputed).
  const double score_elements = spec.heads * s * s;
  const double score_bytes =
      spec.flash_attention
          ? 4 * spec.heads * s
          : elem * score_elements + (spec.dropout ? (sizes.mask_bytes + elem) * score_elements : 0);
  att.activation_bytes_per_sample =
      checked(elem * s * h + elem * s * h + elem * s * q_dim + 2 * elem * s * kv_dim + elem * s * q_dim +
                  sizes.mask_bytes * s * h + score_bytes,
              "attention activations");
  att.checkpoint_bytes_per_sample = checked(elem * s * h_prev, "attention checkpoint");
  // Largest transient: fp32 score matrix without flash attention, else the fused QKV output.
  att.workspace_bytes_per_sample = checked(
      spec.flash_attention ? elem * s * (q_dim + 2 * kv_dim) : 4 * spec.heads * s * s, "attention workspace");
  set_selective_attention(att, spec, sizes, h_prev, h, q_dim, kv_dim);
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
  mlp.activation_bytes_per_sample =
      checked(2 * sizes.element_bytes * s * h + per_expert_activation_bytes(spec, sizes, f) +
                  sizes.mask_bytes * s * h,
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
  mlp.activation_bytes_per_sample = checked(
      2 * sizes.element_bytes * s * h + 4 * s * spec.experts +
          spec.experts_per_token * per_expert_activation_bytes(spec, sizes, f) + sizes.mask_bytes * s * h,
      "moe activations");
}

// MLP block of `layer`: input norm, up (+ gate) and down projections (+ biases); MoE: experts plus a router.
Operator mlp_operator(const TransformerSpec& spec, const ActivationSizes& sizes, int layer) {
  const double h = hidden_of(spec, layer);
  const double f =
      spec.ffn_hidden > 0 && spec.layer_hidden.empty() ? static_cast<double>(spec.ffn_hidden) : 4 * h;
  const double s = sizes.tokens;
  Operator mlp;
  mlp.name = "layer" + std::to_string(layer) + ".mlp";
  mlp.layer = layer;
  mlp.parameter_dtype = spec.parameter_dtype;
  if (spec.experts > 0) {
    set_moe(mlp, spec, sizes, h, f);
  } else {
    set_dense_mlp(mlp, spec, sizes, h, f);
  }
  mlp.backward_flops_per_sample = 2 * mlp.forward_flops_per_sample;
  mlp.checkpoint_bytes_per_sample = checked(sizes.element_bytes * s * h, "mlp checkpoint");
  mlp.workspace_bytes_per_sample =
      checked(sizes.element_bytes * s * f * (spec.experts > 0 ? spec.experts_per_token : 1), "mlp workspace");
  set_selective_mlp(mlp, spec, sizes, layer, h, f);
  return mlp;
}

// Head: final norm and the output projection (its weights are the embedding's when tied).
Operator head_operator(const TransformerSpec& spec, const ActivationSizes& sizes) {
  const double h = hidden_of(spec, spec.layers - 1);
  const double s = sizes.tokens;
  const double vocab = static_cast<double>(spec.vocab);
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
      checked(2 * sizes.element_bytes * s * h + 4 * s * vocab, "head activations");
  op.checkpoint_bytes_per_sample = checked(sizes.element_bytes * s * h, "head checkpoint");
  // The loss's gradient with respect to the fp32 logits, written during the head's backward.
  op.workspace_bytes_per_sample = checked(4 * s * vocab, "head workspace");
  op.loss_gradient_bytes_per_sample = op.workspace_bytes_per_sample;
  set_selective_whole(op);
  return op;
}

}  // namespace

std::string descriptive_name(const TransformerSpec& spec) {
  std::string name = "transformer-" + std::to_string(spec.layers) + "x";
  if (spec.layer_hidden.empty()) {
    name += std::to_string(spec.hidden);
  } else {
    const auto [low, high] = std::minmax_element(spec.layer_hidden.begin(), spec.layer_hidden.end());
    name += std::to_string(*low);
    if (*high != *low) name += "-" + std::to_string(*high);
  }
  if (spec.experts > 0) name += "-moe" + std::to_string(spec.experts);
  return name;
}

Model generate_transformer(const TransformerSpec& spec) {
  validate(spec);
  ActivationSizes sizes;
  sizes.tokens = static_cast<double>(spec.sequence_length);
  sizes.element_bytes = bytes_per_element(spec.parameter_dtype);
  sizes.mask_bytes = spec.dropout ? 1.0 : 0.0;

  Model model;
  model.name = spec.name.empty() ? descriptive_name(spec) : spec.name;
  model.sequence_length = spec.sequence_length;
  model.operators.push_back(embedding_operator(spec, sizes));
  for (int layer = 0; layer < spec.layers; ++layer) {
    model.operators.push_back(attention_operator(spec, sizes, layer));
    model.operators.push_back(mlp_operator(spec, sizes, layer));
  }
  model.operators.push_back(head_operator(spec, sizes));
  return model;
}

}  // namespace shardscope
