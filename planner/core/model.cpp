// Model: bytes per dtype element and whole-model sums over operators, checked against 64-bit overflow.
#include "planner/core/model.hpp"

#include <stdexcept>
#include <string>

#include "planner/core/checked_math.hpp"

namespace shardscope {
namespace {

// One integer total over the operators: its name and the operator's part of it.
struct Total {
  std::string_view name;
  std::int64_t (*part)(const Operator&);
};

constexpr Total kParameters{"total parameters", [](const Operator& op) { return op.parameters; }};
constexpr Total kActiveParameters{"total active parameters",
                                  [](const Operator& op) { return op.active_parameters; }};
constexpr Total kTrainableParameters{"total trainable parameters", [](const Operator& op) {
                                       return op.trainable ? op.parameters : std::int64_t{0};
                                     }};
constexpr Total kActivationBytes{"total activation bytes per sample",
                                 [](const Operator& op) { return op.activation_bytes_per_sample; }};

std::optional<std::int64_t> checked_total(const Model& model, const Total& total) {
  std::int64_t sum = 0;
  for (const Operator& op : model.operators) {
    const std::optional<std::int64_t> next = checked_add(sum, total.part(op));
    if (!next) return std::nullopt;
    sum = *next;
  }
  return sum;
}

std::int64_t total_or_throw(const Model& model, const Total& total) {
  const std::optional<std::int64_t> sum = checked_total(model, total);
  if (!sum)
    throw std::overflow_error("model " + model.name + ": " + std::string(total.name) +
                              " overflow 64-bit integers");
  return *sum;
}

}  // namespace

int bytes_per_element(DType dtype) { return dtype == DType::fp32 ? 4 : 2; }

std::int64_t Model::parameters() const { return total_or_throw(*this, kParameters); }

std::int64_t Model::active_parameters() const { return total_or_throw(*this, kActiveParameters); }

std::int64_t Model::trainable_parameters() const { return total_or_throw(*this, kTrainableParameters); }

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

std::int64_t Model::activation_bytes_per_sample() const { return total_or_throw(*this, kActivationBytes); }

std::optional<std::string_view> overflowing_total(const Model& model) {
  for (const Total* total : {&kParameters, &kActiveParameters, &kTrainableParameters, &kActivationBytes}) {
    if (!checked_total(model, *total)) return total->name;
  }
  return std::nullopt;
}

}  // namespace shardscope
