// The calibration's product-size table (gemm_efficiency.KIND): read, checked with its line, in the digest,
// and priced per product at the micro-batch and slicing the operator runs, by search and program alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "planner/core/calibration.hpp"
#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/program/iteration_program.hpp"
#include "tests/planner/calibration_errors.hpp"

namespace shardscope {
namespace {

constexpr auto error_of = test::calibration_error;

const Operator& first_of(const Scenario& s, OperatorKind kind) {
  return *std::find_if(s.model.operators.begin(), s.model.operators.end(),
                       [kind](const Operator& op) { return op.kind == kind; });
}

Scenario small_gpt() {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 2, hidden: 256, heads: 4, vocab: 1024, sequence_length: 64}\n"
      "cluster: {preset: titan-rtx-8-pcie3}\ntraining: {micro_batch: 2}\n",
      "s.yaml");
}

TEST(GemmEfficiency, ATablePerKindInterpolatesLogLinearlyByProductFlops) {
  const Calibration c = parse_calibration_string(
      "gemm_efficiency:\n  attention:\n    - {flops: 1e6, factor: 0.4}\n    - {flops: 1e8, factor: 1}\n",
      "cal.yaml");
  EXPECT_DOUBLE_EQ(gemm_efficiency_factor(c, OperatorKind::attention, 10), 0.4);
  EXPECT_DOUBLE_EQ(gemm_efficiency_factor(c, OperatorKind::attention, 1e12), 1.0);
  EXPECT_NEAR(gemm_efficiency_factor(c, OperatorKind::attention, 1e7), 0.7, 1e-12);  // halfway in log FLOPs
  EXPECT_DOUBLE_EQ(gemm_efficiency_factor(c, OperatorKind::mlp, 10), 1.0);           // no table for the kind
}

TEST(GemmEfficiency, ABadTableIsAnErrorNamingItsLineAndField) {
  const std::string decreasing = error_of(
      "gemm_efficiency:\n  mlp:\n    - {flops: 1e8, factor: 0.9}\n    - {flops: 1e6, factor: 0.5}\n");
  EXPECT_EQ(decreasing.rfind("4 gemm_efficiency.mlp[1].flops: ", 0), 0u) << decreasing;
  EXPECT_NE(decreasing.find("sizes must increase"), std::string::npos) << decreasing;
  const std::string factor = error_of("gemm_efficiency:\n  mlp: [{flops: 1e6, factor: 1.5}]\n");
  EXPECT_EQ(factor.rfind("2 gemm_efficiency.mlp[0].factor: ", 0), 0u) << factor;
  const std::string flops = error_of("gemm_efficiency:\n  mlp: [{flops: 0, factor: 0.5}]\n");
  EXPECT_EQ(flops.rfind("2 gemm_efficiency.mlp[0].flops: ", 0), 0u) << flops;
  const std::string empty = error_of("gemm_efficiency:\n  head: []\n");
  EXPECT_EQ(empty.rfind("2 gemm_efficiency.head: ", 0), 0u) << empty;
  EXPECT_NE(empty.find("expected a list of {flops, factor} points"), std::string::npos) << empty;
  const std::string kind = error_of("gemm_efficiency:\n  attn: [{flops: 1e6, factor: 0.5}]\n");
  EXPECT_EQ(kind.rfind("2 gemm_efficiency.attn: ", 0), 0u) << kind;
  const std::string field = error_of("gemm_efficiency:\n  mlp: [{bytes: 1e6, factor: 0.5}]\n");
  EXPECT_EQ(field.rfind("2 gemm_efficiency.mlp[0].bytes: ", 0), 0u) << field;
  const std::string list = error_of("gemm_efficiency: [{flops: 1e6, factor: 0.5}]\n");
  EXPECT_EQ(list.rfind("1 gemm_efficiency: ", 0), 0u) << list;
}

TEST(GemmEfficiency, ATableEntersTheDigestAndNoTableKeepsIt) {
  const Calibration plain = parse_calibration_string("overlap_slowdown: 0.5\n", "cal.yaml");
  Calibration expected;
  expected.overlap_slowdown = 0.5;
  EXPECT_EQ(calibration_digest(plain), calibration_digest(expected));
  const Calibration with = parse_calibration_string(
      "overlap_slowdown: 0.5\ngemm_efficiency: {mlp: [{flops: 1e6, factor: 0.5}]}\n", "c");
  const Calibration other = parse_calibration_string(
      "overlap_slowdown: 0.5\ngemm_efficiency: {attention: [{flops: 1e6, factor: 0.5}]}\n", "c");
  EXPECT_NE(calibration_digest(with), calibration_digest(plain));
  EXPECT_NE(calibration_digest(with), calibration_digest(other));
}

// A table built in code (not through the parser) is checked before it prices anything, field by field.
TEST(GemmEfficiency, ABadTableBuiltInCodeIsNamedByTheCheck) {
  const Scenario s = small_gpt();
  Calibration cal;
  cal.gemm_efficiency[static_cast<std::size_t>(OperatorKind::mlp)] = {{1e8, 0.5}, {1e6, 1.5}, {0, 0.5}};
  std::vector<std::string> fields;
  for (const ScenarioIssue& issue : calibration_issues(cal, s)) fields.push_back(issue.field);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"gemm_efficiency.mlp[1].flops", "gemm_efficiency.mlp[1].factor",
                                      "gemm_efficiency.mlp[2].flops", "gemm_efficiency.mlp[2].flops"}));
  EXPECT_THROW(validate_calibration(cal, s), InputError);
}

// Every product of the operator at one factor: the operator's rate is that factor on its products' FLOPs,
// 1 on the rest (a transformer block's FLOPs are all in its products).
TEST(GemmEfficiency, AFlatFactorScalesTheOperatorsProductTime) {
  const Scenario s = small_gpt();
  const Calibration flat =
      parse_calibration_string("gemm_efficiency: {attention: [{flops: 1, factor: 0.5}]}\n", "cal.yaml");
  const ComputeModel with(s.cluster, s.training.precision, flat);
  const ComputeModel without(s.cluster, s.training.precision, Calibration{});
  const Operator& attention = first_of(s, OperatorKind::attention);
  double product_flops = 0;
  for (const GemmShape& g : attention.forward_gemms) product_flops += g.flops();
  ASSERT_GT(product_flops, 0);
  const double other = attention.forward_flops_per_sample - product_flops;
  const double slowdown = (other + 2 * product_flops) / attention.forward_flops_per_sample;
  EXPECT_NEAR(with.forward_seconds(attention, 2) / without.forward_seconds(attention, 2), slowdown, 1e-12);
  EXPECT_NEAR(with.backward_seconds(attention, 2) / without.backward_seconds(attention, 2), slowdown, 1e-12);
  const Operator& mlp = first_of(s, OperatorKind::mlp);  // no table for mlp: unchanged
  EXPECT_DOUBLE_EQ(with.forward_seconds(mlp, 2), without.forward_seconds(mlp, 2));
}

// Slices compute a share of every product's columns: smaller products, priced lower on the table.
TEST(GemmEfficiency, SlicesAreSlowerWhereTheTableSaysSmallProductsAre) {
  const Scenario s = small_gpt();
  const Operator& mlp = first_of(s, OperatorKind::mlp);
  double smallest = mlp.forward_gemms.front().flops();
  for (const GemmShape& g : mlp.forward_gemms) smallest = std::min(smallest, g.flops());
  const double at_two = 2 * smallest;  // each product's FLOPs at micro-batch 2, unsliced, is at least this
  const Calibration table = parse_calibration_string(
      "gemm_efficiency:\n  mlp:\n    - {flops: " + std::to_string(at_two / 4) +
          ", factor: 0.5}\n    - {flops: " + std::to_string(at_two) + ", factor: 1}\n",
      "cal.yaml");
  const ComputeModel model(s.cluster, s.training.precision, table);
  const ComputeModel plain(s.cluster, s.training.precision, Calibration{});
  EXPECT_DOUBLE_EQ(model.forward_seconds(mlp, 2, 1), plain.forward_seconds(mlp, 2, 1));
  EXPECT_GT(model.forward_seconds(mlp, 2, 2), plain.forward_seconds(mlp, 2, 2));
  EXPECT_DOUBLE_EQ(model.forward_seconds(mlp, 2, 4), 2 * plain.forward_seconds(mlp, 2, 4));  // all at 0.5
  EXPECT_DOUBLE_EQ(model.size_factor(mlp, 2, 4), 0.5);
  EXPECT_DOUBLE_EQ(plain.forward_seconds(mlp, 2, 4), plain.forward_seconds(mlp, 2, 1));  // no table: same

  // The iteration program prices each slice as the cost model does: 1/slices of the sliced pass.
  Plan plan;
  plan.micro_batch = 2;
  plan.gradient_accumulation_steps = 1;
  for (const Operator& op : s.model.operators) {
    OperatorChoice c;
    c.name = op.name;
    c.slices = op.kind == OperatorKind::mlp ? 4 : 1;
    c.sharded_slices = c.slices;
    plan.operators.push_back(c);
  }
  const IterationProgram program =
      build_iteration_program(ValidScenario(s), table, plan, ProgramOptions{1, false});
  const double expected = model.forward_seconds(mlp, 2, 4) / 4 + table.slice_overhead_seconds * 3 / 4;
  int slices_found = 0;
  for (const Task& t : program.tasks) {
    if (t.name == "fwd " + mlp.name) {
      EXPECT_DOUBLE_EQ(t.compute_seconds, expected) << t.name;
      ++slices_found;
    }
  }
  EXPECT_EQ(slices_found, 4);
}

}  // namespace
}  // namespace shardscope
