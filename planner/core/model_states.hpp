// Per-GPU model-state memory under a sharding scope per state (PaRO Table 2; ZeRO-1/2/3 and DDP are cases).
#pragma once

#include <cstdint>
#include <string>

#include "planner/core/names.hpp"
#include "planner/core/training_config.hpp"

namespace shardscope {

// N: replicated on every GPU; I: sharded inside a group of M GPUs; G: sharded over all N GPUs.
enum class ShardScope { N, I, G };

template <>
struct EnumNames<ShardScope> {
  static constexpr NameEntry<ShardScope> table[] = {
      {ShardScope::N, "N", "replicated on every GPU"},
      {ShardScope::I, "I", "sharded inside a group of GPUs"},
      {ShardScope::G, "G", "sharded over all GPUs"},
  };
};

struct Scopes {
  ShardScope parameters = ShardScope::N;
  ShardScope gradients = ShardScope::N;
  ShardScope optimizer = ShardScope::N;
  std::string name() const;  // e.g. "NNG"
};

struct ModelStateBytes {
  double parameter_bytes = 0;
  double gradient_bytes = 0;
  double optimizer_bytes = 0;
  double total() const { return parameter_bytes + gradient_bytes + optimizer_bytes; }
};

// Fraction of a state a GPU holds under `scope`: 1 (N), 1/group (I) or 1/gpus (G).
double scope_share(ShardScope scope, int gpus_total, int group_size);

// Memory per GPU of the model states of `parameters` trainable parameters, with N GPUs in all and
// groups of M (M divides N). Exactly PaRO Table 2: e.g. ZeRO-1 = NNG gives 2Ψ + 2Ψ + KΨ/N.
ModelStateBytes model_state_bytes_per_gpu(double parameters, const Scopes& scopes, int gpus_total,
                                          int group_size, const StateBytesPerParameter& bytes);

}  // namespace shardscope
