// The harness's arithmetic: nccl-tests bandwidths, the counting allocator, a task's products and bytes, the
// measurements JSON and the machine's cluster YAML (read back by the planner's own parser).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "planner/core/transformer.hpp"
#include "planner/io/cluster_presets.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/io/transformer_parser.hpp"
#include "validate/core/bus_bandwidth.hpp"
#include "validate/core/counting_allocator.hpp"
#include "validate/core/machine_cluster.hpp"
#include "validate/core/operator_work.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {
namespace {

TEST(BusBandwidth, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::all_gather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::reduce_scatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(algorithm_gbps(2e9, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(bus_gbps(CollectiveKind::all_reduce, 4, 1e9, 1.0), 1.5);
}

TEST(CountingAllocator, PeakAndPartialReleases) {
  CountingAllocator a;
  a.allocate(MemoryCategory::activations, 100);
  a.allocate(MemoryCategory::activations, 50);
  a.allocate(MemoryCategory::gathered, 30);
  EXPECT_DOUBLE_EQ(a.peak_bytes(), 180);
  a.release(MemoryCategory::activations, 120);  // the 50 block and 70 of the 100 one
  EXPECT_DOUBLE_EQ(a.in_use_bytes(), 60);
  a.reset_peak();
  EXPECT_DOUBLE_EQ(a.peak_bytes(), 60);
  EXPECT_THROW(a.release(MemoryCategory::gathered, 31), std::logic_error);
}

// A source that records what it lends (the cuda backend's device pool stands behind this interface).
class RecordingSource : public MemorySource {
 public:
  void* acquire(std::size_t bytes) override {
    held_bytes += bytes;
    blocks.push_back(std::make_unique<std::byte[]>(bytes == 0 ? 1 : bytes));
    return blocks.back().get();
  }
  void give_back(void* /*block*/, std::size_t bytes) override { held_bytes -= bytes; }
  std::size_t held_bytes = 0;
  std::vector<std::unique_ptr<std::byte[]>> blocks;
};

TEST(CountingAllocator, BlocksComeFromTheSourceAndGoBackToIt) {
  RecordingSource source;
  {
    CountingAllocator a(source);
    a.allocate(MemoryCategory::activations, 100);
    a.allocate(MemoryCategory::activations, 50.5);  // rounded up to whole bytes for the source
    a.allocate(MemoryCategory::gathered, 30);
    EXPECT_EQ(source.held_bytes, 181u);
    a.release(MemoryCategory::activations, 120);  // the 51-byte block goes back; the 100 one is only shrunk
    EXPECT_EQ(source.held_bytes, 130u);
    EXPECT_DOUBLE_EQ(a.peak_bytes(), 180.5);
  }
  EXPECT_EQ(source.held_bytes, 0u);  // the allocator's end gives back what it still held
}

Task compute_task(Task::Phase phase, int op, double fraction) {
  Task t;
  t.phase = phase;
  t.operator_index = op;
  t.slice_fraction = fraction;
  return t;
}

TEST(OperatorWork, ForwardBackwardAndSlices) {
  const Model model = generate_transformer(model_preset("nd-48x1536", "test", 0, "model.preset"));
  const Operator& mlp = model.operators[2];
  const KernelWork fwd = kernel_work(model, compute_task(Task::Phase::forward, 2, 1), {4, 1});
  double flops = 0;
  for (const Gemm& g : fwd.gemms) flops += g.flops();
  EXPECT_DOUBLE_EQ(flops, 4 * mlp.forward_flops_per_sample);
  EXPECT_EQ(fwd.gemms[0].m, 4 * 1024);  // four samples' tokens stacked
  EXPECT_DOUBLE_EQ(fwd.elementwise_bytes, 4.0 * static_cast<double>(mlp.activation_bytes_per_sample));
  const KernelWork bwd = kernel_work(model, compute_task(Task::Phase::backward, 2, 0.5), {4, 1});
  flops = 0;
  for (const Gemm& g : bwd.gemms) flops += g.flops();
  EXPECT_DOUBLE_EQ(flops, 0.5 * 4 * mlp.backward_flops_per_sample);
  ASSERT_EQ(bwd.gemms.size(), 4u);
  EXPECT_EQ(bwd.gemms[0].role, "up+dgrad");
  // Attention scores are per sample: samples go to the batch, the scale to the rows.
  const KernelWork att = kernel_work(model, compute_task(Task::Phase::forward, 1, 1), {2, 0.25});
  EXPECT_EQ(att.gemms[1].role, "scores");
  EXPECT_EQ(att.gemms[1].batch, 16 * 2);
  EXPECT_EQ(att.gemms[1].m, 256);
  Task update = compute_task(Task::Phase::update, 2, 1);
  update.update_state_bytes = 1000;
  EXPECT_DOUBLE_EQ(kernel_work(model, update, {4, 1}).elementwise_bytes, 2000);
}

// Under tensor parallelism an operator's pass runs its TP collectives after its products: the forward's in
// forward and recompute, the backward's in backward, each of the planner's bytes (per sample x samples x the
// slice's fraction x the compute scale); an update task runs none.
TEST(OperatorWork, TensorParallelCollectivesFollowThePass) {
  const Scenario s =
      load_scenario_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/scenarios/cpu-4rank-tp.yaml");
  ASSERT_TRUE(s.mesh.sliced());
  int checked = 0;
  for (std::size_t i = 0; i < s.model.operators.size(); ++i) {
    const Operator& op = s.model.operators[i];
    if (op.tensor_collectives.empty()) continue;
    const int index = static_cast<int>(i);
    for (const Task::Phase phase : {Task::Phase::forward, Task::Phase::recompute, Task::Phase::backward}) {
      const KernelWork w = kernel_work(s.model, compute_task(phase, index, 0.5), {8, 2});
      std::vector<double> expected;
      for (const TensorCollective& c : op.tensor_collectives)
        if (c.backward == (phase == Task::Phase::backward))
          expected.push_back(c.bytes_per_sample * 8 * 0.5 * 2);
      ASSERT_EQ(w.mesh.size(), expected.size()) << op.name;
      for (std::size_t k = 0; k < expected.size(); ++k) {
        EXPECT_DOUBLE_EQ(w.mesh[k].bytes, expected[k]) << op.name;
        EXPECT_EQ(w.mesh[k].axis, MeshAxis::tensor);
        EXPECT_FALSE(w.mesh[k].overlapped);  // TP's all-reduces block
      }
      checked += static_cast<int>(expected.size());
    }
    Task update = compute_task(Task::Phase::update, index, 1);
    update.update_state_bytes = 100;
    EXPECT_TRUE(kernel_work(s.model, update, {8, 1}).mesh.empty());
  }
  EXPECT_GT(checked, 0);
  // Context parallelism's K/V exchange runs beside the attention's kernels.
  const Scenario cp =
      load_scenario_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/scenarios/cpu-4rank-cp.yaml");
  int exchanges = 0;
  for (std::size_t i = 0; i < cp.model.operators.size(); ++i)
    for (const MeshCall& call :
         kernel_work(cp.model, compute_task(Task::Phase::backward, static_cast<int>(i), 1), {8, 1}).mesh) {
      EXPECT_EQ(call.axis, MeshAxis::context);
      EXPECT_TRUE(call.overlapped);
      ++exchanges;
    }
  EXPECT_EQ(exchanges, 2 * 4);  // an all-gather and a reduce-scatter in each layer's attention backward
  // Expert parallelism's dispatch and combine: two blocking all-to-alls in each experts operator's pass.
  const Scenario ep =
      load_scenario_file(std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/scenarios/cpu-4rank-ep.yaml");
  int all_to_alls = 0;
  for (std::size_t i = 0; i < ep.model.operators.size(); ++i) {
    const Operator& op = ep.model.operators[i];
    for (const Task::Phase phase : {Task::Phase::forward, Task::Phase::backward}) {
      const KernelWork w = kernel_work(ep.model, compute_task(phase, static_cast<int>(i), 1), {8, 1});
      for (const MeshCall& call : w.mesh) {
        EXPECT_TRUE(op.expert_parallel) << op.name;
        EXPECT_EQ(call.axis, MeshAxis::expert);
        EXPECT_TRUE(call.all_to_all);
        EXPECT_FALSE(call.overlapped);
        EXPECT_DOUBLE_EQ(call.bytes, op.tensor_collectives.front().bytes_per_sample * 8);
        ++all_to_alls;
      }
    }
  }
  EXPECT_EQ(all_to_alls, 4 * 4);  // dispatch and combine, forward and backward, in each of 4 layers
}

Measurements sample_measurements() {
  Measurements m;
  m.machine.hostnames = {"h", "h"};
  m.machine.ranks = 2;
  m.machine.ranks_per_node = 2;
  m.machine.device_name = "test cpu";
  m.machine.memory_bytes_per_rank = 4.0 * 1073741824;
  for (double bytes : {8.0, 1024.0, 1048576.0, 4194304.0, 16777216.0}) {
    CollectiveSample c;
    c.op = CollectiveKind::all_reduce;
    c.group = GroupKind::global;
    c.group_size = 2;
    c.bytes = bytes;
    c.time_seconds = 2e-6 + bytes / 4e9;
    c.algbw_gbps = algorithm_gbps(bytes, c.time_seconds);
    c.busbw_gbps = bus_gbps(CollectiveKind::all_reduce, 2, bytes, c.time_seconds);
    m.collectives.push_back(c);
  }
  m.gemms.push_back(Gemm{"up", OperatorKind::mlp, 1, 1000, 1000, 1000}.sample("float32", 0.1));  // 20 GFLOP/s
  m.elementwise.push_back({"", 1e8, 0.01});
  return m;
}

TEST(Measurements, AProductsSampleCarriesItsShapeAndFlops) {
  const GemmSample g = Gemm{"up", OperatorKind::mlp, 2, 1000, 100, 10}.sample("float32", 0.1);
  EXPECT_EQ(g.operator_kind, OperatorKind::mlp);
  EXPECT_EQ(g.batch, 2);
  EXPECT_DOUBLE_EQ(g.flops, 4e6);
  EXPECT_EQ(g.dtype, "float32");
}

TEST(MachineCluster, TheDescribedMachineParsesAsACluster) {
  const Measurements m = sample_measurements();
  const MachineCluster c = machine_cluster(m);
  EXPECT_DOUBLE_EQ(c.flops_per_second, 2e10);
  EXPECT_DOUBLE_EQ(c.memory_bytes_per_second, 1e10);
  EXPECT_NEAR(c.link_latency_seconds, 1e-6, 1e-7);  // the 8-byte all-reduce over 2(n-1) = 2 steps
  const std::string yaml = machine_cluster_yaml(m, c);
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_machine-cluster.yaml";
  std::ofstream(path) << yaml;
  const Cluster cluster = load_cluster(path);
  EXPECT_EQ(cluster.gpus(), 2);
  EXPECT_NEAR(cluster.gpu.peak_flops_per_second_fp32, 2e10, 2e4);
  EXPECT_NEAR(cluster.nvswitch.gpu_bytes_per_second, c.link_bytes_per_second, 1e-5 * c.link_bytes_per_second);
}

TEST(MachineCluster, PeakIsTheFastestProductAndTheFractionTheMix) {
  Measurements m = sample_measurements();
  m.gemms.push_back(
      Gemm{"qkv", OperatorKind::attention, 1, 1000, 1000, 1000}.sample("float32", 0.05));  // 40 GFLOP/s
  const MachineCluster c = machine_cluster(m);
  EXPECT_DOUBLE_EQ(c.peak_flops_per_second, 4e10);
  EXPECT_DOUBLE_EQ(c.flops_per_second, 4e9 / 0.15);  // both products' FLOPs over both times
  const std::string path =
      ::testing::TempDir() + std::to_string(::getpid()) + "_machine-cluster-two-rates.yaml";
  std::ofstream(path) << machine_cluster_yaml(m, c);
  const Cluster cluster = load_cluster(path);
  EXPECT_NEAR(cluster.gpu.peak_flops_per_second_fp32, 4e10, 4e4);
  // The planner's rate (peak x fraction) is the mix's, as with one product.
  EXPECT_NEAR(cluster.gpu.peak_flops_per_second_fp32 * cluster.gpu.achievable_fraction, c.flops_per_second,
              1e-5 * c.flops_per_second);
}

}  // namespace
}  // namespace shardscope::validate
