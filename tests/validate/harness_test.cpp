// The shared benchmark harnesses over fakes: the nccl-tests loop (sweep_collectives) and the kernel loops
// (bench_kernel_*), without MPI (one process: the world is this rank alone).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "validate/core/kernel_bench.hpp"
#include "validate/mpi/collective_sweep.hpp"

namespace shardscope::validate {
namespace {

// Records every call; groups of `ranks` (intra) and 1 (inter, so that kind is skipped) and 2 * ranks (all).
class FakeSweep : public CollectiveSweepBackend {
 public:
  explicit FakeSweep(int ranks) : ranks_(ranks) {}
  int group_ranks(GroupKind group) const override {
    return group == GroupKind::intra ? ranks_ : group == GroupKind::inter ? 1 : 2 * ranks_;
  }
  void start_size(CollectiveKind, GroupKind, const SweepSize&) override { calls.push_back("start"); }
  void run(CollectiveKind kind, GroupKind group, const SweepSize& size) override {
    ++runs[std::string(to_string(group)) + "/" + contract_name(kind) + "/" + std::to_string(size.count)];
    calls.push_back("run");
  }
  void wait(CollectiveKind, GroupKind, const SweepSize&) override { calls.push_back("wait"); }

  std::vector<std::string> calls;
  std::map<std::string, int> runs;

 private:
  int ranks_;
};

TEST(CollectiveSweep, SkipsKindsOfOneRankAndRunsWarmupOnceAndTheLoopPerSize) {
  FakeSweep fake(4);
  BenchOptions options;
  options.min_bytes = 1024;
  options.max_bytes = 4096;
  options.iterations = 7;
  options.warmup = 2;
  const auto rows = sweep_collectives(fake, options, 4, 4, SweepLoop{});
  // intra (4 ranks) and all (8 ranks), three operations, sizes 1, 2, 4 KiB: no inter rows.
  ASSERT_EQ(rows.size(), 2u * 3u * 3u);
  for (const CollectiveSample& r : rows) {
    EXPECT_NE(r.group, GroupKind::inter);
    EXPECT_EQ(r.iterations, 7);
  }
  EXPECT_EQ(rows.front().group, GroupKind::intra);
  EXPECT_EQ(rows.front().op, CollectiveKind::all_reduce);
  EXPECT_EQ(rows.front().bytes, 1024);
  EXPECT_EQ(rows.front().count, 256);  // float32 elements per rank of a 1 KiB all-reduce
  // Per size: start, 2 warm-up runs, the run timed alone and its wait, then one loop of 7 runs and a wait.
  const std::vector<std::string> first(fake.calls.begin(), fake.calls.begin() + 14);
  EXPECT_EQ(first, (std::vector<std::string>{"start", "run", "run", "run", "wait", "run", "run", "run", "run",
                                             "run", "run", "run", "wait", "start"}));
  EXPECT_EQ(fake.runs.at("intra/all_reduce/256"), 2 + 1 + 7);
}

TEST(CollectiveSweep, SmallSizesTakeTheMedianOfFiveLoopsWhenAsked) {
  FakeSweep fake(2);
  BenchOptions options;
  options.min_bytes = options.max_bytes = 1024;
  options.iterations = 3;
  options.warmup = 0;
  sweep_collectives(fake, options, 2, 2,
                    SweepLoop{.fill_min_loop_seconds = false, .median_of_small_sizes = true});
  // One op alone, then five loops of three.
  EXPECT_EQ(fake.runs.at("intra/all_reduce/256"), 1 + kMedianRepeats * 3);
  options.min_bytes = options.max_bytes = 2 * kMedianUpToBytes;
  FakeSweep large(2);
  sweep_collectives(large, options, 2, 2,
                    SweepLoop{.fill_min_loop_seconds = false, .median_of_small_sizes = true});
  const std::string key =
      "intra/all_reduce/" + std::to_string(static_cast<std::int64_t>(2 * kMedianUpToBytes / 4));
  EXPECT_EQ(large.runs.at(key), 1 + 3);
}

TEST(CollectiveSweep, FillingTheMinimumLoopTimeNeverRunsFewerThanAsked) {
  FakeSweep fake(2);
  BenchOptions options;
  options.min_bytes = options.max_bytes = 1024;
  options.iterations = 5;
  options.warmup = 0;
  const auto rows = sweep_collectives(fake, options, 2, 2, SweepLoop{.fill_min_loop_seconds = true});
  ASSERT_FALSE(rows.empty());
  // A fake op takes well under a microsecond: the loop fills 2 ms, capped at 100,000 calls.
  EXPECT_GE(rows.front().iterations, 5);
  EXPECT_LE(rows.front().iterations, 100000);
  EXPECT_EQ(fake.runs.at("intra/all_reduce/256"), 1 + rows.front().iterations);
}

// Kernels that count what they were asked to do.
class FakeKernels : public Kernels {
 public:
  void reserve(const Gemm& g) override { log.push_back("reserve " + std::to_string(g.m)); }
  void reserve_bytes(double bytes) override { log.push_back("reserve_bytes " + std::to_string(bytes)); }
  void gemm(const Gemm& g) override { log.push_back("gemm " + std::to_string(g.m)); }
  void elementwise(double bytes) override { log.push_back("elementwise " + std::to_string(bytes)); }
  void copy(double bytes) override { log.push_back("copy " + std::to_string(bytes)); }
  std::string gemm_dtype() const override { return "fake16"; }
  using Kernels::reserve;
  std::vector<std::string> log;
};

TEST(KernelBench, EachSizeIsReservedThenTimedWithTheBackEndsClock) {
  FakeKernels kernels;
  int timed = 0;
  const KernelTimer timer = [&](const std::function<void()>& body) {
    body();
    return ++timed * 1e-3;
  };
  Gemm g;
  g.m = g.n = g.k = 8;
  const auto gemms = bench_kernel_gemms(kernels, {g}, timer);
  ASSERT_EQ(gemms.size(), 1u);
  EXPECT_EQ(gemms[0].dtype, "fake16");
  EXPECT_DOUBLE_EQ(gemms[0].time_seconds, 1e-3);
  const auto copies = bench_kernel_copies(kernels, 1024, 16384, timer);
  ASSERT_EQ(copies.size(), 3u);  // 1, 4, 16 KiB
  EXPECT_EQ(copies[2].kind, "device_to_device");
  EXPECT_EQ(copies[2].bytes, 16384);
  EXPECT_EQ(kernels.log[0], "reserve 8");
  EXPECT_EQ(kernels.log[1], "gemm 8");
  EXPECT_EQ(kernels.log[2], "reserve_bytes " + std::to_string(1024.0));
  EXPECT_EQ(kernels.log[3], "copy " + std::to_string(1024.0));
  const auto elementwise = bench_kernel_elementwise(kernels, 1024, 1024, timer);
  EXPECT_EQ(elementwise.at(0).kind, "");
}

TEST(KernelBench, RunningATaskDoesItsProductsThenItsElementwiseBytesOnly) {
  FakeKernels kernels;
  KernelWork work;
  Gemm g;
  g.m = 3;
  work.gemms = {g, g};
  kernels.run(work);  // no element-wise bytes: none run
  EXPECT_EQ(kernels.log, (std::vector<std::string>{"gemm 3", "gemm 3"}));
  work.elementwise_bytes = 12;
  kernels.reserve(std::vector<KernelWork>{work});
  EXPECT_EQ(kernels.log.back(), "reserve_bytes " + std::to_string(12.0));
}

}  // namespace
}  // namespace shardscope::validate
