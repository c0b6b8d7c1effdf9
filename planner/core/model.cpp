// Model: names of kinds and dtypes, and whole-model sums over operators.
#include "planner/core/model.hpp"

namespace shardscope {

const char* to_string(OperatorKind kind) {
  switch (kind) {
    case OperatorKind::embedding:
      return "embedding";
    case OperatorKind::attention:
      return "attention";
    case OperatorKind::mlp:
      return "mlp";
    case OperatorKind::moe:
      return "moe";
    case OperatorKind::linear:
      return "linear";
    case OperatorKind::norm:
      return "norm";
    case OperatorKind::head:
      return "head";
    case OperatorKind::other:
      return "other";
  }
  return "other";
}

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::fp32:
      return "fp32";
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
  }
  return "bf16";
}

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
