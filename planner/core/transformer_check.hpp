// The checks a transformer spec and a tensor / context slice of it pass before generate_transformer builds
// a model; each throws TransformerSpecError naming the spec field (or "tensor", "context",
// "sequence_parallel" for the slice) and what was expected.
#pragma once

#include "planner/core/transformer.hpp"

namespace shardscope {

// Sizes in range, KV heads dividing heads, one width per layer when widths vary, experts consistent.
void check_transformer_spec(const TransformerSpec& spec);
// What a tensor-parallel slice needs of the model: whole heads, KV heads and feed-forward columns per GPU,
// one width, and with sequence parallelism whole tokens per GPU; a context degree dividing the sequence.
void check_transformer_slice(const TransformerSpec& spec, const TensorSlice& slice);

}  // namespace shardscope
