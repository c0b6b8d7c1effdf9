// Runtime profiles: the shipped files, kernel pricing against hand-derived seconds (products by size, flash
// attention's causal half, element-wise bytes, the host floor), the reserve, the digest, and every refusal
// with its file, line and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/core/scenario_check.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/runtime_profiles.hpp"
#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

Scenario gpt(const std::string& runtime, const std::string& cluster = "dgx-h100") {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: " +
          cluster + "}\ntraining: {micro_batch: 2}\nexecution: {runtime: " + runtime + "}\n",
      "s.yaml");
}

const Operator& first_of(const Scenario& s, OperatorKind kind) {
  return *std::find_if(s.model.operators.begin(), s.model.operators.end(),
                       [kind](const Operator& op) { return op.kind == kind; });
}

std::string error_of(const std::string& runtime, const std::string& cluster, const std::string& extra = "") {
  try {
    parse_scenario_string(
        "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, "
        "sequence_length: 2048}\ncluster: {preset: " +
            cluster + "}\nexecution: {runtime: " + runtime + "}\n" + extra,
        "s.yaml");
  } catch (const InputError& e) {
    return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
  }
  return "no error";
}

TEST(RuntimeProfiles, EveryShippedFileReadsWithItsOwnName) {
  for (RuntimeName name : values<RuntimeName>()) {
    const RuntimeProfile p = runtime_profile(name);
    EXPECT_EQ(p.name, name);
    EXPECT_FALSE(runtime_profile_source(name).empty()) << to_string(name);
    if (name == RuntimeName::ideal) {
      EXPECT_EQ(p.host_forward_seconds, 0);
      EXPECT_EQ(p.host_backward_seconds, 0);
      EXPECT_EQ(p.reserve_bytes, 0);
    } else {
      EXPECT_GT(p.host_forward_seconds, 0) << to_string(name);
      EXPECT_GT(p.reserve_bytes, 0) << to_string(name);
    }
  }
}

// A profile file's text with `published_errors` set to `errors`: "LINE FIELD: message", or "no error".
std::string profile_error(const std::string& errors, const std::string& name = "fsdp2") {
  const std::string text = "name: " + name +
                           "\ndescription: d\nsource: s\nhost_forward_per_operator: 230us\n"
                           "host_backward_per_operator: 460us\nreserve: 2GiB\n" +
                           errors;
  try {
    (void)parse_runtime_profile(text, "fsdp2.yaml", RuntimeName::fsdp2);
  } catch (const InputError& e) {
    return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
  }
  return "no error";
}

// A profile file's published errors are checked like any input: each bad entry names its file, line and
// field (the shipped files are embedded, so only a developer editing one meets these).
TEST(RuntimeProfiles, AMalformedPublishedErrorNamesItsFieldAndLine) {
  const std::string good =
      "  H100-SXM5-80GB: {rows: 3, mape: 0.03, bias: 0.01, worst: 0.04, min_parameters: 8e9, "
      "max_parameters: 8e9, min_gpus: 8, max_gpus: 128}\n";
  EXPECT_EQ(profile_error("published_errors:\n" + good), "no error");
  const RuntimeProfile p = parse_runtime_profile(
      "name: fsdp2\ndescription: d\nsource: s\nhost_forward_per_operator: 1us\n"
      "host_backward_per_operator: 1us\nreserve: 1GiB\npublished_errors:\n" +
          good,
      "fsdp2.yaml", RuntimeName::fsdp2);
  ASSERT_EQ(p.published_errors.size(), 1u);
  EXPECT_EQ(p.published_errors[0].max_gpus, 128);
  const auto expect_error = [&](const std::string& errors, const std::string& line_and_field,
                                const std::string& says) {
    const std::string error = profile_error(errors);
    EXPECT_EQ(error.rfind(line_and_field, 0), 0u) << error;
    EXPECT_NE(error.find(says), std::string::npos) << error;
  };
  expect_error("pipeline_sends_block: sometimes\n", "7 pipeline_sends_block", "true or false");
  expect_error("pipeline_keeps_receive_buffers: 2\n", "7 pipeline_keeps_receive_buffers", "true or false");
  expect_error(
      "published_errors:\n  H100: {rows: 3, mape: 0.03, bias: 0, worst: 0.04, min_parameters: 8e9, "
      "max_parameters: 8e9, min_gpus: 8, max_gpus: 128, seed: 1}\n",
      "8 published_errors.H100.seed", "unknown");
  expect_error(
      "published_errors:\n  H100: {rows: 3, mape: 11, bias: 0, worst: 0.04, min_parameters: 8e9, "
      "max_parameters: 8e9, min_gpus: 8, max_gpus: 128}\n",
      "8 published_errors.H100.mape", "10");
  expect_error(
      "published_errors:\n  H100: {rows: 3, mape: 0.1, bias: 0, worst: 0.04, min_parameters: 8e9, "
      "max_parameters: 8e9, min_gpus: 64, max_gpus: 8}\n",
      "8 published_errors.H100.max_gpus", "64");
  expect_error(
      "published_errors:\n  H100: {mape: 0.1, bias: 0, worst: 0.04, min_parameters: 8e9, "
      "max_parameters: 8e9, min_gpus: 8, max_gpus: 8}\n",
      "8 published_errors.H100.rows", "");
  const std::string h100 =
      "published_errors:\n  H100: {rows: 3, mape: 0.03, bias: 0, worst: 0.04, min_parameters: 8e9, "
      "max_parameters: 8e9, min_gpus: 8, max_gpus: 128";
  EXPECT_EQ(profile_error(h100 + ", pairs: 3, pair_sd: 0.05}\n"), "no error");
  expect_error(h100 + ", pairs: 3}\n", "8 published_errors.H100.pairs", "pair_sd");
  expect_error(h100 + ", pair_sd: 0.05}\n", "8 published_errors.H100.pair_sd", "pairs");
  expect_error(h100 + ", pairs: 0, pair_sd: 0.05}\n", "8 published_errors.H100.pairs", "");
  expect_error(h100 + ", pairs: 3, pair_sd: 11}\n", "8 published_errors.H100.pair_sd", "10");
  EXPECT_EQ(profile_error(h100 + ", memory_rows: 2, memory_mape: 0.05}\n"), "no error");
  expect_error(h100 + ", memory_rows: 4, memory_mape: 0.05}\n", "8 published_errors.H100.memory_rows", "3");
  expect_error(h100 + ", memory_rows: 2}\n", "8 published_errors.H100.memory_mape", "");
  expect_error("published_errors: [1, 2]\n", "7 published_errors", "");
  expect_error("published_errors:\n  H100: 3\n", "8 published_errors.H100", "");
  expect_error("published_errors:\n  ? [a, b]\n  : {rows: 1}\n", "8 published_errors", "got a list");
  EXPECT_EQ(profile_error("", "fsdp1"), "1 name: fsdp2.yaml:1: name: expected 'fsdp2', the file's own name");
}

// An MLP's two products at the GEMM fraction for their size: F FLOPs of one call take F (F + h) / (F x peak x
// fraction); its kept bytes cross HBM once forward and twice backward at the element-wise fraction.
TEST(KernelPricing, ProductsAndElementwiseBytesAsHandDerived) {
  const Scenario s = gpt("fsdp1");
  const KernelEfficiency& k = *s.cluster.gpu.kernels;
  const Operator& mlp = first_of(s, OperatorKind::mlp);
  const ComputeModel model(s.cluster, s.training.precision, Calibration{}, s.execution.runtime);
  const double samples = 64, peak = s.cluster.gpu.peak_flops_per_second_fp16;  // above the host floor
  double forward = 0;
  for (const GemmShape& g : mlp.forward_gemms) {
    const double f = g.flops() * samples;
    forward += f * (f + k.gemm_half_rate_flops) / (f * peak * k.gemm_fraction);
  }
  const double kept = static_cast<double>(mlp.activation_bytes_per_sample) * samples;
  const double bandwidth = s.cluster.gpu.hbm_bytes_per_second * k.elementwise_fraction;
  const ComputeModel::PassSeconds got = model.pass_seconds(mlp, samples, 1);
  ASSERT_GT(got.forward, s.execution.runtime.host_forward_seconds);
  EXPECT_NEAR(got.forward, forward + kept / bandwidth, 1e-12 * got.forward);
  EXPECT_NEAR(got.backward, 2 * forward + 2 * kept / bandwidth, 1e-12 * got.backward);
}

// Attention: its projections as products, the scores and values products at flash attention's causal half,
// the backward at 2.5 x the forward's FLOPs and the backward fraction.
TEST(KernelPricing, FlashAttentionComputesTheCausalHalf) {
  const Scenario s = gpt("fsdp2");
  const KernelEfficiency& k = *s.cluster.gpu.kernels;
  const Operator& att = first_of(s, OperatorKind::attention);
  const ComputeModel model(s.cluster, s.training.precision, Calibration{}, s.execution.runtime);
  const double samples = 64, peak = s.cluster.gpu.peak_flops_per_second_fp16;  // above the host floor
  double products = 0, attention = 0;
  for (const GemmShape& g : att.forward_gemms) {
    const double f = g.flops() * samples;
    if (g.role == "scores" || g.role == "values") {
      attention += f / 2;
    } else {
      products += f * (f + k.gemm_half_rate_flops) / (f * peak * k.gemm_fraction);
    }
  }
  ASSERT_GT(attention, 0);
  const double kept = static_cast<double>(att.activation_bytes_per_sample) * samples /
                      (s.cluster.gpu.hbm_bytes_per_second * k.elementwise_fraction);
  const ComputeModel::PassSeconds got = model.pass_seconds(att, samples, 1);
  ASSERT_GT(got.forward, s.execution.runtime.host_forward_seconds);
  EXPECT_NEAR(got.forward, products + attention / (peak * k.attention_forward_fraction) + kept,
              1e-12 * got.forward);
  EXPECT_NEAR(got.backward,
              2 * products + 2.5 * attention / (peak * k.attention_backward_fraction) + 2 * kept,
              1e-12 * got.backward);
}

// A pass whose kernels take less than the host needs to issue it takes the host's time; slices each pay it.
TEST(KernelPricing, HostTimeIsAFloorPerPassAndSlice) {
  const Scenario s = gpt("fsdp1");
  Calibration c;
  c.runtime.host_forward_seconds = 1.0;  // far above any kernel time here
  c.runtime.host_backward_seconds = 3.0;
  const ComputeModel model(s.cluster, s.training.precision, c, s.execution.runtime);
  const ComputeModel::PassSeconds one = model.pass_seconds(first_of(s, OperatorKind::mlp), 2, 1);
  const ComputeModel::PassSeconds four = model.pass_seconds(first_of(s, OperatorKind::mlp), 2, 4);
  EXPECT_EQ(one.forward, 1.0);
  EXPECT_EQ(one.backward, 3.0);
  EXPECT_EQ(four.forward, 4.0);
  EXPECT_EQ(four.backward, 12.0);
}

// Issue 31, item 3: one mechanism. A calibration's measured products (per-kind fractions and size tables, or
// the product_shapes model) price the products under a framework's runtime too, instead of being ignored
// there; the kernels' element-wise bytes and host floor stay.
TEST(KernelPricing, ACalibrationsKindFractionAndTablePriceTheProducts) {
  const Scenario s = gpt("fsdp1");
  const Operator& mlp = first_of(s, OperatorKind::mlp);
  Calibration c;
  c.achievable_fraction[static_cast<std::size_t>(OperatorKind::mlp)] = 0.5;
  c.gemm_efficiency[static_cast<std::size_t>(OperatorKind::mlp)] = {{1e9, 0.4}, {1e13, 0.9}};
  ASSERT_EQ(kernel_product_source(c), KernelProductSource::kind_fits);
  const double samples = 64, peak = s.cluster.gpu.peak_flops_per_second_fp16;
  const double bandwidth = s.cluster.gpu.hbm_bytes_per_second * s.cluster.gpu.kernels->elementwise_fraction;
  const double kept = static_cast<double>(mlp.activation_bytes_per_sample) * samples / bandwidth;
  for (const Float8Recipe float8 : {Float8Recipe::none, Float8Recipe::delayed}) {
    const double speedup = float8 == Float8Recipe::none ? 1.0 : s.cluster.gpu.kernels->fp8_speedup;
    double forward = 0;
    for (const GemmShape& g : mlp.forward_gemms) {
      const double f = g.flops() * samples;
      forward += f / (speedup * peak * 0.5 * gemm_efficiency_factor(c, OperatorKind::mlp, f));
    }
    const ComputeModel model(s.cluster, s.training.precision, c, s.execution.runtime,
                             KernelOptions{false, float8});
    const ComputeModel::PassSeconds got = model.pass_seconds(mlp, samples, 1);
    EXPECT_NEAR(got.forward, forward + kept, 1e-12 * got.forward);
    EXPECT_NEAR(got.backward, 2 * forward + 2 * kept, 1e-12 * got.backward);
  }
  // A kind the calibration does not fit (attention's projections) keeps the GPU's curve.
  const Operator& att = first_of(s, OperatorKind::attention);
  const ComputeModel fitted(s.cluster, s.training.precision, c, s.execution.runtime);
  const ComputeModel plain(s.cluster, s.training.precision, Calibration{}, s.execution.runtime);
  EXPECT_EQ(fitted.pass_seconds(att, samples, 1).forward, plain.pass_seconds(att, samples, 1).forward);
}

// product_shapes: each product by its shape (the slice's columns, `slices` times), the backward as the
// data-gradient (m x k from n) and weight-gradient (k x n from m) products, at the kind's fraction.
TEST(KernelPricing, ACalibrationsProductShapesPriceEachProductByItsShape) {
  const Scenario s = gpt("fsdp2");
  const Operator& mlp = first_of(s, OperatorKind::mlp);
  Calibration c;
  c.product_shapes = ProductShapeModel{2.5e9, 2.75e12, 0.15, 8, MisalignedDimensions::rows_or_reduction};
  c.achievable_fraction[static_cast<std::size_t>(OperatorKind::mlp)] = 0.7;
  ASSERT_EQ(kernel_product_source(c), KernelProductSource::product_shapes);
  const double samples = 8, peak = s.cluster.gpu.peak_flops_per_second_fp16;
  const double bandwidth = s.cluster.gpu.hbm_bytes_per_second * s.cluster.gpu.kernels->elementwise_fraction;
  const double kept = static_cast<double>(mlp.activation_bytes_per_sample) * samples / bandwidth;
  for (const int slices : {1, 4}) {
    double forward = 0, backward = 0;
    for (const GemmShape& g : mlp.forward_gemms) {
      ASSERT_FALSE(g.per_sample);
      const double m = static_cast<double>(g.m) * samples, n = static_cast<double>(g.n) / slices;
      const double k = static_cast<double>(g.k), b = static_cast<double>(g.batch);
      const auto at = [&](double rows, double columns, double reduction) {
        return slices * product_shape_seconds(*c.product_shapes, peak, 0.7, b, rows, columns, reduction);
      };
      forward += at(m, n, k);
      backward += at(m, k, n) + at(k, n, m);
    }
    const ComputeModel model(s.cluster, s.training.precision, c, s.execution.runtime);
    const ComputeModel::PassSeconds got = model.pass_seconds(mlp, samples, slices);
    EXPECT_NEAR(got.forward, std::max(forward + kept, slices * s.execution.runtime.host_forward_seconds),
                1e-12 * got.forward)
        << slices;
    EXPECT_NEAR(got.backward,
                std::max(backward + 2 * kept, slices * s.execution.runtime.host_backward_seconds),
                1e-12 * got.backward)
        << slices;
  }
}

// The `runtime:` section fits the kernels' curve for a runtime: where it gives the curve, the products follow
// it whatever else the calibration says; without any product fit the GPU's kernels price them.
TEST(KernelPricing, ARuntimeFitOfTheCurveComesFirst) {
  Calibration c;
  EXPECT_EQ(kernel_product_source(c), KernelProductSource::gpu_kernels);
  c.gemm_efficiency[static_cast<std::size_t>(OperatorKind::head)] = {{1e9, 0.5}};
  EXPECT_EQ(kernel_product_source(c), KernelProductSource::kind_fits);
  c.product_shapes = ProductShapeModel{1e9, 1e12, 0, 8, MisalignedDimensions::any};
  EXPECT_EQ(kernel_product_source(c), KernelProductSource::product_shapes);
  c.runtime.gemm_half_rate_flops = 1e9;
  EXPECT_EQ(kernel_product_source(c), KernelProductSource::runtime_fit);
  const Scenario s = gpt("fsdp1");
  Calibration curve_only;
  curve_only.runtime.gemm_half_rate_flops = 1e9;
  const Operator& mlp = first_of(s, OperatorKind::mlp);
  const ComputeModel with_all(s.cluster, s.training.precision, c, s.execution.runtime);
  const ComputeModel with_curve(s.cluster, s.training.precision, curve_only, s.execution.runtime);
  EXPECT_EQ(with_all.pass_seconds(mlp, 64, 1).forward, with_curve.pass_seconds(mlp, 64, 1).forward);
  EXPECT_EQ(with_all.pass_seconds(mlp, 64, 1).backward, with_curve.pass_seconds(mlp, 64, 1).backward);
}

// A calibration's elementwise_bandwidth measures the validation harness's own kernels: the ideal executor
// prices element-wise bytes and the optimizer by it, a framework's runtime by its kernels' share of HBM.
TEST(KernelPricing, ACalibrationsElementwiseBandwidthIsTheIdealExecutors) {
  Calibration c;
  c.elementwise_bytes_per_second = 1e12;
  for (const std::string runtime : {"ideal", "fsdp2"}) {
    const Scenario s = gpt(runtime);
    const ComputeModel model(s.cluster, s.training.precision, c, s.execution.runtime);
    const double expected =
        runtime == "ideal" ? 1e12
                           : s.cluster.gpu.hbm_bytes_per_second * s.cluster.gpu.kernels->elementwise_fraction;
    EXPECT_EQ(model.elementwise_bytes_per_second(), expected) << runtime;
    EXPECT_EQ(model.update_seconds(1e9), 2e9 / expected) << runtime;
  }
}

TEST(KernelPricing, IdealIgnoresKernelsAndCalibratedRuntimeFits) {
  const Scenario ideal = gpt("ideal");
  Calibration c;
  c.runtime.host_forward_seconds = 1.0;
  c.runtime.gemm_fraction = 0.01;
  const Operator& mlp = first_of(ideal, OperatorKind::mlp);
  const ComputeModel fitted(ideal.cluster, ideal.training.precision, c, ideal.execution.runtime);
  const ComputeModel plain(ideal.cluster, ideal.training.precision, Calibration{}, ideal.execution.runtime);
  EXPECT_EQ(fitted.pass_seconds(mlp, 2, 1).forward, plain.pass_seconds(mlp, 2, 1).forward);
  const double expected =
      2 * mlp.forward_flops_per_sample /
      (ideal.cluster.gpu.peak_flops_per_second_fp16 * ideal.cluster.gpu.achievable_fraction);
  EXPECT_NEAR(plain.pass_seconds(mlp, 2, 1).forward, expected, 1e-12 * expected);
}

TEST(RuntimeProfiles, ReserveAndDigest) {
  const Scenario ideal = gpt("ideal"), fsdp1 = gpt("fsdp1");
  EXPECT_EQ(runtime_reserve_bytes(ideal, Calibration{}), 0);
  EXPECT_EQ(runtime_reserve_bytes(fsdp1, Calibration{}), runtime_profile(RuntimeName::fsdp1).reserve_bytes);
  EXPECT_NE(scenario_digest(ideal), scenario_digest(fsdp1));
  // ideal adds nothing to the digest: the same scenario without the key has the same digest.
  const Scenario unset = parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-h100}\ntraining: {micro_batch: 2}\n",
      "s.yaml");
  EXPECT_EQ(scenario_digest(ideal), scenario_digest(unset));
}

TEST(RuntimeProfiles, RefusalsNameTheField) {
  EXPECT_EQ(error_of("fsdp1", "titan-rtx-8-pcie3").substr(0, 22), "4 execution.runtime: s");
  EXPECT_NE(error_of("fsdp1", "titan-rtx-8-pcie3").find("GPU 'TITAN RTX' gives none (cluster.gpu.kernels)"),
            std::string::npos);
  EXPECT_NE(
      error_of("fsdp1", "dgx-h100", "planner: {cost_model: paper, paper: {alpha: 10us, beta: 10GB/s}}\n")
          .find("needs the topology cost model"),
      std::string::npos);
  EXPECT_NE(error_of("fsdp3", "dgx-h100").find("execution.runtime"), std::string::npos);
  EXPECT_NE(error_of("fsdp3", "dgx-h100").find("fsdp1"), std::string::npos);  // lists or suggests
  EXPECT_EQ(error_of("ideal", "titan-rtx-8-pcie3"), "no error");
}

TEST(RuntimeProfiles, CalibrationRuntimeFitsAreChecked) {
  const auto error = [](const std::string& text) -> std::string {
    try {
      parse_calibration_string(text, "cal.yaml");
    } catch (const InputError& e) {
      return std::to_string(e.line()) + " " + e.field();
    }
    return "no error";
  };
  EXPECT_EQ(error("runtime:\n  gemm_fraction: 1.5\n"), "2 runtime.gemm_fraction");
  EXPECT_EQ(error("runtime:\n  host_forward_per_operator: -1s\n"), "2 runtime.host_forward_per_operator");
  EXPECT_EQ(error("runtime:\n  gemm_fractoin: 0.5\n"), "2 runtime.gemm_fractoin");
  EXPECT_EQ(error("runtime:\n  gemm_fraction: 0.5\n  host_forward_per_operator: 100us\n"), "no error");
  const Calibration c =
      parse_calibration_string("runtime:\n  host_forward_per_operator: 100us\n", "cal.yaml");
  EXPECT_DOUBLE_EQ(*c.runtime.host_forward_seconds, 100e-6);
  EXPECT_FALSE(c.runtime.gemm_fraction.has_value());
}

TEST(RuntimeProfiles, GpuKernelsAreChecked) {
  const std::string base =
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster:\n  preset: dgx-h100\n  gpu:\n    kernels:\n      gemm_fraction: ";
  try {
    parse_scenario_string(base + "0\n", "s.yaml");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "cluster.gpu.kernels.gemm_fraction") << e.what();
    EXPECT_EQ(e.line(), 7);
  }
}

}  // namespace
}  // namespace shardscope

namespace shardscope {
namespace {

Scenario checkpointed(const std::string& runtime, const std::string& policy) {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 2, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: dgx-h100}\ntraining: {micro_batch: 2, checkpointing: " +
          policy + "}\nexecution: {runtime: " + runtime + "}\n",
      "s.yaml");
}

// Frameworks checkpoint whole blocks: with every operator checkpointed under a framework's runtime, an MLP
// keeps nothing (its block's input is the attention's checkpoint); the ideal executor, or a per-operator
// search, keeps each checkpointed operator's input.
TEST(BlockCheckpointing, AnMlpAfterItsAttentionKeepsNothingUnderAFrameworksRuntime) {
  OperatorChoice choice;
  choice.checkpoint = true;
  for (const auto& [runtime, policy, mlp_keeps] :
       {std::tuple{"fsdp1", "all", false}, {"ideal", "all", true}, {"fsdp1", "search", true}}) {
    const Scenario s = checkpointed(runtime, policy);
    const TopologyCostModel model(ValidScenario(s), Calibration{});
    for (std::size_t i = 0; i < s.model.operators.size(); ++i) {
      const Operator& op = s.model.operators[i];
      const double kept = model.memory(i, choice, 2).activation_bytes;
      const bool tail = op.kind == OperatorKind::mlp;
      const double expected =
          tail && !mlp_keeps ? 0.0 : 2.0 * static_cast<double>(op.checkpoint_bytes_per_sample);
      EXPECT_EQ(kept, expected) << runtime << " " << policy << " " << op.name;
      EXPECT_EQ(model.kept_bytes_per_sample(i, choice) * 2, kept) << op.name;
    }
  }
}

}  // namespace
}  // namespace shardscope
