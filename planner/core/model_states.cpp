// Model-state memory per GPU for a given P/G/OS sharding scope (PaRO Table 2).
#include "planner/core/model_states.hpp"

namespace shardscope {

std::string Scopes::name() const {
  return std::string(to_string(parameters)) + to_string(gradients) + to_string(optimizer);
}

double scope_share(ShardScope scope, int gpus_total, int group_size) {
  switch (scope) {
    case ShardScope::N:
      return 1.0;
    case ShardScope::I:
      return 1.0 / group_size;
    case ShardScope::G:
      return 1.0 / gpus_total;
  }
  return 1.0;
}

ModelStateBytes model_state_bytes_per_gpu(double parameters, const Scopes& scopes, int gpus_total,
                                          int group_size, const StateBytesPerParameter& bytes) {
  ModelStateBytes out;
  out.parameter_bytes = bytes.parameter * parameters * scope_share(scopes.parameters, gpus_total, group_size);
  out.gradient_bytes = bytes.gradient * parameters * scope_share(scopes.gradients, gpus_total, group_size);
  out.optimizer_bytes = bytes.optimizer * parameters * scope_share(scopes.optimizer, gpus_total, group_size);
  return out;
}

}  // namespace shardscope
