// PyTorch profiler traces read as measurements: the H100 traces' products by shape (the GPT-2 head's three
// products slow in PyTorch's layout), attention reported, a synthetic trace's NCCL kernel as a collective
// with the product beside it as an overlap sample, and bad traces refused naming the event and field.
#include "validate/fit/torch_trace.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "planner/core/error.hpp"

namespace shardscope::fit {
namespace {

const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kH100 = kSource + "/validate/data/h100";
const std::string kSynthetic = kSource + "/tests/fixtures/torch-trace/synthetic-nccl-overlap.json";

std::string error_of(const std::string& text) {
  try {
    parse_torch_trace(text, "t.json");
  } catch (const InputError& e) {
    return e.field() + ": " + e.what();
  }
  return "no error";
}

#if SHARDSCOPE_HAVE_ZLIB
TEST(TorchTrace, TheH100TracesGiveEveryProductShapeWithItsMedianTime) {
  TraceSummary s;
  const Measurements nd = load_torch_trace(kH100 + "/call-2/trace-nd-48x1536-mb2-none.json.gz", &s);
  EXPECT_EQ(s.product_kernels, 867u);
  EXPECT_EQ(nd.gemms.size(), 15u);
  EXPECT_EQ(s.nccl_kernels, 0u);
  EXPECT_NEAR(s.product_seconds / s.kernel_seconds, 0.273, 0.001);  // products: 27 % of the GPU's busy time
  int slow_heads = 0;
  for (const GemmSample& g : nd.gemms) {
    EXPECT_EQ(g.dtype, "bfloat16");
    EXPECT_EQ(g.operator_kind, OperatorKind::other);
    const double rate = g.flops / g.time_seconds;
    if (g.m == 50257 || g.n == 50257 || g.k == 50257) {
      EXPECT_LT(rate, 150e12) << g.m << "x" << g.n << "x" << g.k;  // 97-143 TFLOP/s: every head product
      ++slow_heads;
    }
  }
  EXPECT_EQ(slow_heads, 3);
  const Measurements llama = load_torch_trace(kH100 + "/call-2/trace-llama-7b-x8-mb6-none.json.gz", &s);
  EXPECT_EQ(llama.gemms.size(), 13u);
  ASSERT_EQ(s.attention.size(), 2u);  // cuDNN's forward and backward
  EXPECT_EQ(s.attention[0].query, (std::vector<long>{6, 32, 2048, 128}));
}
#endif

TEST(TorchTrace, ACollectiveKernelIsASampleAndTheProductBesideItAnOverlapSample) {
  TraceSummary s;
  const Measurements m = load_torch_trace(kSynthetic, &s);
  EXPECT_EQ(s.kernels, 8u);
  EXPECT_EQ(s.product_kernels, 5u);
  EXPECT_EQ(s.overlapped_product_kernels, 1u);
  ASSERT_EQ(m.gemms.size(), 2u);  // 4096^3 (its three alone) and the head
  EXPECT_EQ(m.gemms[0].m, 2048);  // sorted by shape: (1, 2048, 50257, 1536) first
  EXPECT_EQ(m.gemms[0].n, 50257);
  EXPECT_EQ(m.gemms[0].k, 1536);
  EXPECT_DOUBLE_EQ(m.gemms[1].time_seconds, 200e-6);
  ASSERT_EQ(m.collectives.size(), 1u);
  EXPECT_EQ(m.collectives[0].op, CollectiveKind::all_gather);
  EXPECT_EQ(m.collectives[0].group_size, 8);
  EXPECT_DOUBLE_EQ(m.collectives[0].bytes, 2.0 * 8388608);  // the gathered total, as nccl-tests counts it
  EXPECT_DOUBLE_EQ(m.collectives[0].time_seconds, 300e-6);
  ASSERT_EQ(m.overlap.size(), 1u);
  EXPECT_DOUBLE_EQ(m.overlap[0].compute_alone_seconds, 200e-6);
  EXPECT_DOUBLE_EQ(m.overlap[0].compute_with_comm_seconds, 230e-6);
  EXPECT_DOUBLE_EQ(m.overlap[0].comm_alone_seconds, 300e-6);
  ASSERT_EQ(s.attention.size(), 1u);
  EXPECT_EQ(s.attention[0].kernels, 1u);
}

TEST(TorchTrace, ABadTraceIsRefusedNamingTheEventAndField) {
  EXPECT_NE(error_of("{\"traceEvents\": [").find("not JSON"), std::string::npos);
  EXPECT_EQ(error_of("[1, 2]").rfind("traceEvents: ", 0), 0u);
  EXPECT_EQ(error_of("{\"traceEvents\": [7]}").rfind("traceEvents[0]: ", 0), 0u);
  const std::string no_kernels = error_of(
      "{\"traceEvents\": [{\"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"args\": {\"External id\": 1}}]}");
  EXPECT_NE(no_kernels.find("ProfilerActivity.CUDA"), std::string::npos) << no_kernels;
  const std::string no_dur = error_of(
      "{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"args\": {\"External id\": "
      "1}}]}");
  EXPECT_EQ(no_dur.rfind("traceEvents[0].dur: ", 0), 0u) << no_dur;
  const std::string dims = error_of(
      "{\"traceEvents\": [{\"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"args\": {\"External id\": 1, "
      "\"Input Dims\": "
      "[[4, 8], [7, 2]]}}, {\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2, \"args\": "
      "{\"External id\": "
      "1}}]}");
  EXPECT_EQ(dims.rfind("traceEvents[0].args.Input Dims: ", 0), 0u) << dims;
  EXPECT_NE(dims.find("not a product's"), std::string::npos) << dims;
  try {  // an empty file is not JSON (not "too large")
    load_torch_trace(kSource + "/tests/fixtures/torch-trace/README.md");
    FAIL() << "a Markdown file was read as a trace";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not JSON"), std::string::npos) << e.what();
  }
  try {
    load_torch_trace(kSource + "/no-such-trace.json");
    FAIL() << "a missing trace was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the trace"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shardscope::fit
