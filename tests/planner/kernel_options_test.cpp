// torch.compile and Float8 under a framework's profile (execution.compile, execution.float8): the blocks'
// element-wise time at the profile's compiled share, the linear products in fp8 with their casts, against
// hand-derived seconds; the head and the embedding untouched; every refusal naming its field; the digest.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/cost/compute_model.hpp"
#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

Scenario scenario(const std::string& execution, const std::string& cluster = "dgx-h100",
                  const std::string& precision = "mixed-bf16") {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster: {preset: " +
          cluster + "}\ntraining: {micro_batch: 2, precision: " + precision + "}\nexecution: {" + execution +
          "}\n",
      "s.yaml");
}

std::string error_of(const std::string& execution, const std::string& cluster = "dgx-h100",
                     const std::string& precision = "mixed-bf16") {
  try {
    scenario(execution, cluster, precision);
  } catch (const InputError& e) {
    return std::to_string(e.line()) + " " + e.field() + ": " + e.what();
  }
  return "no error";
}

const Operator& named(const Scenario& s, const std::string& name) {
  return *std::find_if(s.model.operators.begin(), s.model.operators.end(),
                       [&](const Operator& op) { return op.name == name; });
}

ComputeModel::PassSeconds pass(const Scenario& s, const std::string& op, double samples) {
  const ComputeModel model(s.cluster, s.training.precision, Calibration{}, s.execution.runtime,
                           s.execution.kernel_options);
  return model.pass_seconds(named(s, op), samples, 1);
}

constexpr double kSamples = 64;  // every pass above the host floor

// Compiled, a block's kept bytes cross HBM at the element-wise bandwidth over the profile's share: the
// products' time is the eager one's, the element-wise time share x the eager one's.
TEST(KernelOptions, CompiledBlocksTakeTheProfilesShareOfTheElementwiseTime) {
  const Scenario eager = scenario("runtime: fsdp2");
  const Scenario compiled = scenario("runtime: fsdp2, compile: true");
  const double share = compiled.execution.runtime.compiled_elementwise_share;
  ASSERT_GT(share, 0);
  ASSERT_LT(share, 1);
  const Operator& mlp = named(eager, "layer0.mlp");
  const double bandwidth =
      eager.cluster.gpu.hbm_bytes_per_second * eager.cluster.gpu.kernels->elementwise_fraction;
  const double kept = static_cast<double>(mlp.activation_bytes_per_sample) * kSamples / bandwidth;
  const ComputeModel::PassSeconds e = pass(eager, "layer0.mlp", kSamples);
  const ComputeModel::PassSeconds c = pass(compiled, "layer0.mlp", kSamples);
  EXPECT_NEAR(e.forward - c.forward, (1 - share) * kept, 1e-9 * e.forward);
  EXPECT_NEAR(e.backward - c.backward, 2 * (1 - share) * kept, 1e-9 * e.backward);
  // torchtitan compiles each block; the head and its loss stay eager.
  EXPECT_EQ(pass(eager, "head", kSamples).forward, pass(compiled, "head", kSamples).forward);
  EXPECT_EQ(pass(eager, "head", kSamples).backward, pass(compiled, "head", kSamples).backward);
}

// Float8: each linear product of a block at fp8_speedup x its FLOP rate, its fixed cost per call kept; its
// casts (amax and cast: 5 bytes per bf16 element) of input and weight forward, and of the output's gradient,
// input and weight backward, at the element-wise bandwidth. Attention's own products and the head stay bf16.
TEST(KernelOptions, FloatEightProductsAndTheirCastsAsHandDerived) {
  const Scenario bf16 = scenario("runtime: fsdp1");
  const Scenario fp8 = scenario("runtime: fsdp1, float8: dynamic");
  const KernelEfficiency& k = *fp8.cluster.gpu.kernels;
  ASSERT_GT(k.fp8_speedup, 1);
  const double rate = fp8.cluster.gpu.peak_flops_per_second_fp16 * k.gemm_fraction;
  const double bandwidth = fp8.cluster.gpu.hbm_bytes_per_second * k.elementwise_fraction;
  for (const char* name : {"layer0.mlp", "layer0.attention"}) {
    const Operator& op = named(fp8, name);
    double saved = 0, cast_forward = 0, cast_backward = 0;
    for (const GemmShape& g : op.forward_gemms) {
      if (g.role == "scores" || g.role == "values") continue;
      const double f = g.flops() * kSamples;
      saved += f * (f - f / k.fp8_speedup) / (f * rate);
      const double rows = static_cast<double>(g.m) * kSamples, kk = static_cast<double>(g.k),
                   n = static_cast<double>(g.n);
      cast_forward += 5 * (rows * kk + kk * n);
      cast_backward += 5 * (rows * n + rows * kk + kk * n);
    }
    ASSERT_GT(saved, 0) << name;
    const ComputeModel::PassSeconds b = pass(bf16, name, kSamples);
    const ComputeModel::PassSeconds f = pass(fp8, name, kSamples);
    EXPECT_NEAR(b.forward - f.forward, saved - cast_forward / bandwidth, 1e-9 * b.forward) << name;
    EXPECT_NEAR(b.backward - f.backward, 2 * saved - cast_backward / bandwidth, 1e-9 * b.backward) << name;
  }
  EXPECT_EQ(pass(bf16, "head", kSamples).forward, pass(fp8, "head", kSamples).forward);
}

// Delayed scaling (TransformerEngine) fuses its casts into the neighbouring kernels: the products' saving
// alone, which the dynamic recipe's casts eat into.
TEST(KernelOptions, DelayedScalingPricesTheProductsWithoutCasts) {
  const Scenario dynamic = scenario("runtime: fsdp1, float8: dynamic");
  const Scenario delayed = scenario("runtime: fsdp1, float8: delayed");
  const KernelEfficiency& k = *delayed.cluster.gpu.kernels;
  const double bandwidth = delayed.cluster.gpu.hbm_bytes_per_second * k.elementwise_fraction;
  const Operator& mlp = named(delayed, "layer0.mlp");
  double cast_forward = 0;
  for (const GemmShape& g : mlp.forward_gemms) {
    const double rows = static_cast<double>(g.m) * kSamples, kk = static_cast<double>(g.k),
                 n = static_cast<double>(g.n);
    cast_forward += 5 * (rows * kk + kk * n);
  }
  const ComputeModel::PassSeconds a = pass(dynamic, "layer0.mlp", kSamples);
  const ComputeModel::PassSeconds b = pass(delayed, "layer0.mlp", kSamples);
  EXPECT_NEAR(a.forward - b.forward, cast_forward / bandwidth, 1e-9 * a.forward);
  EXPECT_LT(b.backward, a.backward);
  const std::string word = error_of("runtime: fsdp2, float8: true");
  EXPECT_NE(word.find("execution.float8"), std::string::npos) << word;
  EXPECT_NE(word.find("none"), std::string::npos) << word;
  EXPECT_NE(word.find("delayed"), std::string::npos) << word;
}

TEST(KernelOptions, EachRefusalNamesTheFieldAndWhatItNeeds) {
  const std::string ideal = error_of("compile: true");
  EXPECT_NE(ideal.find("execution.compile: true needs a framework's runtime (fsdp2 or fsdp1); runtime ideal"),
            std::string::npos)
      << ideal;
  const std::string deepspeed = error_of("runtime: deepspeed, compile: true");
  EXPECT_NE(deepspeed.find("execution.compile: true, but runtime deepspeed has no compiled mode"),
            std::string::npos)
      << deepspeed;
  EXPECT_NE(deepspeed.find("scenarios/runtimes/deepspeed.yaml"), std::string::npos) << deepspeed;
  const std::string no_fp8 = error_of("runtime: fsdp2, float8: dynamic", "dgx-a100");
  EXPECT_NE(no_fp8.find("execution.float8: dynamic, but GPU '"), std::string::npos) << no_fp8;
  EXPECT_NE(no_fp8.find("gives no fp8 product rate (cluster.gpu.kernels.fp8_speedup)"), std::string::npos)
      << no_fp8;
  const std::string fp32 = error_of("runtime: fsdp2, float8: delayed", "dgx-h100", "fp32");
  EXPECT_NE(fp32.find("execution.float8: delayed needs precision mixed-bf16 or mixed-fp16, not fp32"),
            std::string::npos)
      << fp32;
  const std::string ideal_fp8 = error_of("float8: dynamic");
  EXPECT_NE(ideal_fp8.find("execution.float8: dynamic needs a framework's runtime"), std::string::npos)
      << ideal_fp8;
  const std::string word = error_of("runtime: fsdp2, compile: maybe");
  EXPECT_NE(word.find("compile"), std::string::npos) << word;
  EXPECT_NE(word.find("maybe"), std::string::npos) << word;
}

TEST(KernelOptions, AClusterFileRefusesAnFp8SpeedupOutOfRange) {
  const std::string text =
      "model:\n  transformer: {layers: 1, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "cluster:\n  name: c\n  nodes: 1\n  gpus_per_node: 1\n  gpu:\n"
      "    name: g\n    peak_fp16: 100TFLOPS\n    peak_fp32: 10TFLOPS\n    memory: 16GiB\n"
      "    hbm_bandwidth: 1TB/s\n    kernels: {gemm_fraction: 0.6, gemm_half_rate_flops: 1e9, "
      "attention_forward_fraction: 0.3, attention_backward_fraction: 0.3, elementwise_fraction: 0.3, "
      "fp8_speedup: 0.5}\n  intra_node: {kind: nvswitch, gpu_bandwidth: 100GB/s}\n"
      "  network: {kind: fat_tree, nics_per_node: 1, nic_rate: 100Gbps}\n";
  try {
    parse_scenario_string(text, "c.yaml");
    FAIL() << "accepted fp8_speedup 0.5";
  } catch (const InputError& e) {
    EXPECT_NE(e.field().find("fp8_speedup"), std::string::npos) << e.field();
    EXPECT_EQ(e.line(), 13);  // the kernels: line
  }
}

TEST(KernelOptions, TheDigestChangesWithEachOptionAndNotWithoutOne) {
  const std::uint64_t plain = scenario_digest(scenario("runtime: fsdp2"));
  EXPECT_EQ(plain, scenario_digest(scenario("runtime: fsdp2, compile: false, float8: none")));
  const std::uint64_t compiled = scenario_digest(scenario("runtime: fsdp2, compile: true"));
  const std::uint64_t fp8 = scenario_digest(scenario("runtime: fsdp2, float8: dynamic"));
  EXPECT_NE(plain, compiled);
  EXPECT_NE(plain, fp8);
  EXPECT_NE(compiled, fp8);
  EXPECT_NE(fp8, scenario_digest(scenario("runtime: fsdp2, float8: delayed")));
}

}  // namespace
}  // namespace shardscope
