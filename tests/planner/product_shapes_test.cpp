// The calibration's product-shape model and element-wise bandwidth: read and checked with their lines, in the
// digest only when given, and priced exactly as the formula says per product (forward, data and weight
// gradients, slices, misaligned reductions, memory-bound products), by the search and the program alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "planner/core/calibration.hpp"
#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "tests/planner/calibration_errors.hpp"

namespace shardscope {
namespace {

constexpr auto error_of = test::calibration_error;

Scenario vocab_gpt(std::int64_t vocab) {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1536, heads: 12, vocab: " + std::to_string(vocab) +
          ", sequence_length: 1024, tied_embeddings: false}\n"
          "cluster: {preset: dgx-h100}\ntraining: {micro_batch: 2}\n",
      "s.yaml");
}

const Operator& first_of(const Scenario& s, OperatorKind kind) {
  return *std::find_if(s.model.operators.begin(), s.model.operators.end(),
                       [kind](const Operator& op) { return op.kind == kind; });
}

const char* kShapes =
    "achievable_fraction: {attention: 0.7, mlp: 0.7, head: 0.8}\n"
    "product_shapes:\n  half_rate_flops: 1e9\n  operand_bandwidth: 2TB/s\n  misaligned_fraction: 0.15\n"
    "  alignment: 8\n"
    "elementwise_bandwidth: 2.5TB/s\n";

TEST(ProductShapes, TheSectionIsReadWithItsUnits) {
  const Calibration c = parse_calibration_string(kShapes, "cal.yaml");
  ASSERT_TRUE(c.product_shapes);
  EXPECT_DOUBLE_EQ(c.product_shapes->half_rate_flops, 1e9);
  EXPECT_DOUBLE_EQ(c.product_shapes->operand_bytes_per_second, 2e12);
  EXPECT_DOUBLE_EQ(c.product_shapes->misaligned_fraction, 0.15);
  EXPECT_EQ(c.product_shapes->alignment_elements, 8);
  EXPECT_DOUBLE_EQ(c.elementwise_bytes_per_second, 2.5e12);
  const Calibration defaults = parse_calibration_string("product_shapes: {operand_bandwidth: 1TB/s}\n", "c");
  EXPECT_DOUBLE_EQ(defaults.product_shapes->half_rate_flops, 0);
  EXPECT_DOUBLE_EQ(defaults.product_shapes->misaligned_fraction, 0);
  EXPECT_EQ(defaults.product_shapes->alignment_elements, 8);
}

TEST(ProductShapes, ABadSectionIsAnErrorNamingItsLineAndField) {
  const std::string missing = error_of("product_shapes:\n  half_rate_flops: 1e9\n");
  EXPECT_NE(missing.find("product_shapes.operand_bandwidth"), std::string::npos) << missing;
  const std::string fraction =
      error_of("product_shapes:\n  operand_bandwidth: 1TB/s\n  misaligned_fraction: 1.5\n");
  EXPECT_EQ(fraction.rfind("3 product_shapes.misaligned_fraction: ", 0), 0u) << fraction;
  const std::string alignment = error_of("product_shapes:\n  operand_bandwidth: 1TB/s\n  alignment: 0\n");
  EXPECT_EQ(alignment.rfind("3 product_shapes.alignment: ", 0), 0u) << alignment;
  const std::string negative =
      error_of("product_shapes:\n  operand_bandwidth: 1TB/s\n  half_rate_flops: -1\n");
  EXPECT_EQ(negative.rfind("3 product_shapes.half_rate_flops: ", 0), 0u) << negative;
  const std::string unknown = error_of("product_shapes:\n  operand_bandwidth: 1TB/s\n  tile: 128\n");
  EXPECT_EQ(unknown.rfind("3 product_shapes.tile: ", 0), 0u) << unknown;
  const std::string bandwidth = error_of("elementwise_bandwidth: fast\n");
  EXPECT_EQ(bandwidth.rfind("1 elementwise_bandwidth: ", 0), 0u) << bandwidth;
  const std::string zero = error_of("product_shapes: {operand_bandwidth: 0B/s}\n");
  EXPECT_EQ(zero.rfind("1 product_shapes.operand_bandwidth: ", 0), 0u) << zero;
}

TEST(ProductShapes, TheyEnterTheDigestOnlyWhenGiven) {
  const Calibration plain = parse_calibration_string("overlap_slowdown: 0.5\n", "c");
  Calibration expected;
  expected.overlap_slowdown = 0.5;
  EXPECT_EQ(calibration_digest(plain), calibration_digest(expected));
  const Calibration shapes = parse_calibration_string(kShapes, "c");
  Calibration other = shapes;
  other.product_shapes->half_rate_flops = 2e9;
  Calibration elementwise = shapes;
  elementwise.elementwise_bytes_per_second = 1e12;
  EXPECT_NE(calibration_digest(shapes), calibration_digest(plain));
  EXPECT_NE(calibration_digest(shapes), calibration_digest(other));
  EXPECT_NE(calibration_digest(shapes), calibration_digest(elementwise));
}

TEST(ProductShapes, OneProductIsTheLargerOfItsRateAndOperandTimes) {
  const ProductShapeModel m{1e9, 2e12, 0.15, 8};
  const double peak = 1e15, fraction = 0.7;
  // 4096^3: compute-bound; F / (F + 1e9) of the rate.
  const double f = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(product_shape_seconds(m, peak, fraction, 1, 4096, 4096, 4096),
                   f / (peak * fraction * f / (f + 1e9)));
  // 400 x (1024 x 16 by 16 x 1024): the operands' bytes take longer than the FLOPs.
  const double bytes = 2.0 * 400 * (1024 * 16 + 16 * 1024 + 1024 * 1024);
  EXPECT_DOUBLE_EQ(product_shape_seconds(m, peak, fraction, 400, 1024, 1024, 16), bytes / 2e12);
  // A reduction over 50257 (not a multiple of 8) runs at the misaligned fraction; over 50264 it does not.
  const double g = 2.0 * 4096 * 1536 * 50257;
  EXPECT_DOUBLE_EQ(product_shape_seconds(m, peak, fraction, 1, 4096, 1536, 50257),
                   g / (peak * 0.15 * g / (g + 1e9)));
  const double h = 2.0 * 4096 * 1536 * 50264;
  EXPECT_DOUBLE_EQ(product_shape_seconds(m, peak, fraction, 1, 4096, 1536, 50264),
                   h / (peak * 0.7 * h / (h + 1e9)));
  EXPECT_EQ(product_shape_seconds(m, peak, fraction, 1, 0, 16, 16), 0.0);
}

// The head of a GPT with an odd vocabulary: forward (m = tokens, n = vocab, k = hidden), data gradient
// (reduction over the vocabulary: misaligned), weight gradient (reduction over tokens), plus the kept
// activation bytes at the element-wise bandwidth, each as the formula prices it.
TEST(ProductShapes, AnOperatorsPassesAreItsProductsPlusItsElementwiseBytes) {
  const Scenario s = vocab_gpt(50257);
  const Calibration c = parse_calibration_string(kShapes, "cal.yaml");
  const ComputeModel model(s.cluster, s.training.precision, c);
  const Operator& head = first_of(s, OperatorKind::head);
  ASSERT_EQ(head.forward_gemms.size(), 1u);
  const GemmShape& g = head.forward_gemms[0];
  const double peak = s.cluster.gpu.peak_flops_per_second_fp16, samples = 2;
  const ProductShapeModel& m = *c.product_shapes;
  const double tokens = static_cast<double>(g.m) * samples;
  const auto n = static_cast<double>(g.n), k = static_cast<double>(g.k);
  const double fwd = product_shape_seconds(m, peak, 0.8, 1, tokens, n, k);
  const double bwd = product_shape_seconds(m, peak, 0.8, 1, tokens, k, n) +
                     product_shape_seconds(m, peak, 0.8, 1, k, n, tokens);
  const double kept = static_cast<double>(head.activation_bytes_per_sample) * samples;
  const double other_fwd = samples * std::max(0.0, head.forward_flops_per_sample - g.flops()) / (peak * 0.8);
  const double other_bwd =
      samples * std::max(0.0, head.backward_flops_per_sample - 2 * g.flops()) / (peak * 0.8);
  const ComputeModel::PassSeconds p = model.pass_seconds(head, samples, 1);
  EXPECT_DOUBLE_EQ(p.forward, fwd + other_fwd + kept / 2.5e12);
  EXPECT_DOUBLE_EQ(p.backward, bwd + other_bwd + 2 * kept / 2.5e12);
  // The same vocabulary padded to a multiple of 8: the data gradient is several times faster.
  const Scenario padded = vocab_gpt(50304);
  const ComputeModel::PassSeconds q = ComputeModel(padded.cluster, padded.training.precision, c)
                                          .pass_seconds(first_of(padded, OperatorKind::head), samples, 1);
  EXPECT_GT(p.backward, 2 * q.backward);
}

TEST(ProductShapes, SlicesPriceEachSliceAndTheUpdateUsesTheElementwiseBandwidth) {
  const Scenario s = vocab_gpt(1024);
  const Calibration c = parse_calibration_string(kShapes, "cal.yaml");
  const ComputeModel model(s.cluster, s.training.precision, c);
  const Operator& mlp = first_of(s, OperatorKind::mlp);
  const ComputeModel::PassSeconds one = model.pass_seconds(mlp, 2, 1), four = model.pass_seconds(mlp, 2, 4);
  EXPECT_GT(four.forward,
            one.forward);  // four products of a quarter of the columns, each further from the rate
  double sliced = 0;
  for (const GemmShape& g : mlp.forward_gemms)
    sliced += 4 * product_shape_seconds(*c.product_shapes, s.cluster.gpu.peak_flops_per_second_fp16, 0.7, 1,
                                        static_cast<double>(g.m) * 2, static_cast<double>(g.n) / 4,
                                        static_cast<double>(g.k));
  const double kept = static_cast<double>(mlp.activation_bytes_per_sample) * 2 / 2.5e12;
  const double other = 2 *
                       std::max(
                           0.0, mlp.forward_flops_per_sample -
                                    [&] {
                                      double f = 0;
                                      for (const GemmShape& g : mlp.forward_gemms) f += g.flops();
                                      return f;
                                    }()) /
                       (s.cluster.gpu.peak_flops_per_second_fp16 * 0.7);
  EXPECT_DOUBLE_EQ(four.forward, sliced + other + kept);
  EXPECT_DOUBLE_EQ(model.update_seconds(1e9), 2e9 / 2.5e12);
  const ComputeModel plain(s.cluster, s.training.precision, Calibration{});
  EXPECT_DOUBLE_EQ(plain.update_seconds(1e9), 2e9 / s.cluster.gpu.hbm_bytes_per_second);
}

}  // namespace
}  // namespace shardscope
