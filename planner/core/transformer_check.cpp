// The checks a transformer spec and a tensor / context slice of it pass before a model is generated.
#include "planner/core/transformer_check.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace shardscope {
namespace {

void require(bool ok, const char* field, const std::string& message) {
  if (!ok) throw TransformerSpecError(field, message);
}

}  // namespace

void check_transformer_spec(const TransformerSpec& spec) {
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
    const double h = layer_hidden_size(spec, l);
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

namespace {

// Expert parallelism: an MoE model whose experts the degree divides, without tensor parallelism (experts
// sliced by both are not modelled), the imbalance a factor of at least 1.
void check_expert_slice(const TransformerSpec& spec, const TensorSlice& slice) {
  const int e = slice.expert;
  require(e >= 1 && e <= 4096, "expert", "the expert-parallel degree must be between 1 and 4096");
  require(
      std::isfinite(slice.expert_imbalance) && slice.expert_imbalance >= 1 && slice.expert_imbalance <= 64,
      "expert_imbalance", "the expert load imbalance must be a factor between 1 and 64");
  if (e == 1) return;
  const std::string degree = "expert-parallel degree " + std::to_string(e);
  require(spec.experts > 0, "expert",
          degree + ": the model has no experts (expert parallelism splits MoE layers)");
  require(spec.experts % e == 0, "expert",
          degree + " does not divide the " + std::to_string(spec.experts) + " experts of a layer");
  require(slice.degree == 1, "expert",
          degree + " with tensor-parallel degree " + std::to_string(slice.degree) +
              ": experts sliced by tensor parallelism too are not modelled");
}

}  // namespace

void check_transformer_slice(const TransformerSpec& spec, const TensorSlice& slice) {
  const int t = slice.degree;
  require(t >= 1 && t <= 1024, "tensor", "the tensor-parallel degree must be between 1 and 1024");
  require(slice.context >= 1 && slice.context <= 1024, "context",
          "the context-parallel degree must be between 1 and 1024");
  require(spec.sequence_length % slice.context == 0, "context",
          "context-parallel degree " + std::to_string(slice.context) +
              " does not divide the sequence length " + std::to_string(spec.sequence_length) +
              " (each GPU takes whole tokens of every sequence)");
  check_expert_slice(spec, slice);
  if (t == 1) {
    require(!slice.sequence_parallel, "sequence_parallel",
            "sequence parallelism needs a tensor degree above 1");
    return;
  }
  const auto divides = [t](std::int64_t n) { return n % t == 0; };
  const std::string degree = "tensor-parallel degree " + std::to_string(t);
  // Per-layer widths (OSDP's I&C models): each layer sliced at its own width; the projection where the width
  // changes stays whole on every GPU, on the whole sequence, so not under sequence parallelism.
  require(spec.layer_hidden.empty() || !slice.sequence_parallel, "sequence_parallel",
          degree +
              " with sequence parallelism: a model with per-layer widths is sliced without it (its "
              "width-changing projections run on whole sequences)");
  require(divides(spec.heads), "tensor",
          degree + " does not divide the " + std::to_string(spec.heads) + " attention heads");
  const int kv_heads = spec.kv_heads == 0 ? spec.heads : spec.kv_heads;
  require(divides(kv_heads), "tensor",
          degree + " does not divide the " + std::to_string(kv_heads) +
              " KV heads (replicating KV heads across GPUs is not modelled)");
  // Per-layer widths take 4h wide MLPs, which a degree dividing the heads divides.
  const std::int64_t f = spec.ffn_hidden > 0 && spec.layer_hidden.empty() ? spec.ffn_hidden : 4 * spec.hidden;
  require(!spec.layer_hidden.empty() || divides(f), "tensor",
          degree + " does not divide the feed-forward width " + std::to_string(f));
  const std::int64_t chunk = spec.sequence_length / slice.context;
  require(!slice.sequence_parallel || divides(chunk), "sequence_parallel",
          degree + " does not divide the " + std::to_string(chunk) +
              " tokens of a sequence (chunk) per GPU (sequence parallelism gives each GPU whole tokens)");
}

}  // namespace shardscope
