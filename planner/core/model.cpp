// Model: bytes per dtype element and whole-model sums over operators.
#include "planner/core/model.hpp"

namespace shardscope {

int bytes_per_element(DType dtype) { return dtype == DType::fp32 ? 4 : 2; }

std::int64_t Model::parameters() const {
  std::int64_t sum = 0;
  for (const Operator& op : operators) sum += op.parameters;
  return sum;
}

std::int64_t Model::active_parameters() const {
  std::int64_t sum = 0;
  for (const Operator& op : operators) sum += op.active_parameters;
  return sum;
}

std::int64_t Model::trainable_parameters() const {
  std::int64_t sum = 0;
  for (const Operator& op : operators) sum += op.trainable ? op.parameters : 0;
  return sum;
}

double Model::forward_flops_per_sample() const {
  double sum = 0;
  for (const Operator& op : operators) sum += op.forward_flops_per_sample;
  return sum;
}

double Model::backward_flops_per_sample() const {
  double sum = 0;
  for (const Operator& op : operators) sum += op.backward_flops_per_sample;
  return sum;
}

std::int64_t Model::activation_bytes_per_sample() const {
  std::int64_t sum = 0;
  for (const Operator& op : operators) sum += op.activation_bytes_per_sample;
  return sum;
}

}  // namespace shardscope
