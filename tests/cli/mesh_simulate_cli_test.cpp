// simulate of tensor- and context-parallel meshes (issue 33): context parallelism's K/V exchanges run as
// ring flows beside the attention's kernels, equal to the planner alone and contending beside the
// data-parallel collectives; the trace shows every mesh collective apart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kLongSequences = kSource + "/scenarios/llama3.1-8b-cp-64k.yaml";
const std::string kTensor = kSource + "/scenarios/llama3.1-8b-tp2-16gpu.yaml";

#ifdef SHARDSCOPE_HAVE_SIM
struct Simulated {
  nlohmann::json result;
  nlohmann::json trace;  // traceEvents, when asked for
};

// Plans `scenario` with `flags` into a temporary folder, simulates that plan with `flags` and
// `simulate_flags` (and a trace), and returns both.
Simulated simulate(const std::string& scenario, const std::string& flags, const std::string& simulate_flags) {
  const auto dir = std::filesystem::temp_directory_path() / ("ss_mesh_sim_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string plan = (dir / "plan.json").string(), trace = (dir / "trace.json").string();
  const auto planned =
      test::run_command(kBinary + " plan " + scenario + flags + " --quiet --no-baselines --out " + plan);
  EXPECT_EQ(planned.exit_code, 0) << planned.err;
  const auto r = test::run_command(kBinary + " simulate " + scenario + flags + " --plan " + plan +
                                   " --json --trace " + trace + simulate_flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Simulated out;
  out.result = nlohmann::json::parse(r.out);
  std::ifstream in(trace);
  out.trace = nlohmann::json::parse(in).at("traceEvents");
  std::filesystem::remove_all(dir);
  return out;
}

double ratio(const nlohmann::json& result) {
  return result.at("iteration_seconds").get<double>() /
         result.at("planner").at("iteration_seconds").get<double>();
}

// GPU 0's events named with `prefix`, by their lane (0 compute, 1 communication).
std::map<int, std::vector<nlohmann::json>> events(const nlohmann::json& trace, const std::string& prefix) {
  std::map<int, std::vector<nlohmann::json>> out;
  for (const auto& e : trace) {
    if (e.value("ph", "") != "X" || e.at("pid") != 0) continue;
    if (e.at("name").get<std::string>().rfind(prefix, 0) == 0) out[e.at("tid").get<int>()].push_back(e);
  }
  return out;
}

TEST(MeshSimulateCli, ContextParallelRingsAgreeAloneAndContendBeside) {
  for (const char* degree : {"2", "4", "8"}) {
    for (const char* collectives : {"ring", "nccl"}) {
      const std::string flags = std::string(" --cp ") + degree + " --collectives " + collectives;
      EXPECT_NEAR(ratio(simulate(kLongSequences, flags, " --serial").result), 1.0, 1e-6) << flags;
      const double beside = ratio(simulate(kLongSequences, flags, "").result);
      EXPECT_GE(beside, 1 - 1e-9) << flags;
      EXPECT_LE(beside, 1.05) << flags;
    }
  }
}

// Over two nodes at 8k tokens the K/V ring is longer than the attention's kernels and two of its edges
// cross the NICs the data-parallel collectives use: the simulator shows the contention the planner cannot
// (9.9 % here), and alone it agrees again.
TEST(MeshSimulateCli, AContextRingOverTwoNodesContendsOnTheNics) {
  const auto dir = std::filesystem::temp_directory_path() / ("ss_cp_nodes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string scenario = (dir / "cp16.yaml").string();
  std::ofstream(scenario) << "name: cp16\nmodel: {preset: llama3.1-8b, sequence_length: 8192}\n"
                             "cluster: {preset: dgx-h100, nodes: 2}\nparallelism: {context: 16}\n"
                             "training: {precision: mixed-bf16, micro_batch: 1, checkpointing: all}\n"
                             "execution: {runtime: fsdp2}\n";
  EXPECT_GT(ratio(simulate(scenario, "", "").result), 1.05);
  EXPECT_NEAR(ratio(simulate(scenario, "", " --serial").result), 1.0, 1e-6);
  std::filesystem::remove_all(dir);
}

// Ring attention's K/V all-gather runs beside the attention's kernels (the communication lane), as a ring
// of the context group; the backward's all-gather and reduce-scatter one after the other.
TEST(MeshSimulateCli, TheTraceShowsTheKvRingBesideTheAttention) {
  const Simulated s = simulate(kLongSequences, " --cp 4", "");
  const auto gathers = events(s.trace, "AG fwd layer0.attention");
  ASSERT_EQ(gathers.count(1), 1u);
  EXPECT_EQ(gathers.count(0), 0u);
  const auto& e = gathers.at(1).front();
  EXPECT_EQ(e.at("args").at("group"), "context");
  EXPECT_EQ(e.at("args").at("algorithm"), "ring");
  EXPECT_EQ(e.at("args").at("collective"), "all-gather");
  const auto kernels = events(s.trace, "fwd layer0.attention");
  ASSERT_EQ(kernels.count(0), 1u);
  EXPECT_NEAR(e.at("ts").get<double>(), kernels.at(0).front().at("ts").get<double>(), 1e-6);
  EXPECT_EQ(events(s.trace, "RS bwd layer0.attention").count(1), 1u);
}

// Tensor-parallel collectives sit inside one data-parallel rank of the platform: timed as priced, each its
// own event on the compute lane, with sequence parallelism a gather before the kernels and a
// reduce-scatter after them.
TEST(MeshSimulateCli, TheTraceShowsTheTensorParallelCollectivesApart) {
  const Simulated s = simulate(kTensor, "", "");
  EXPECT_NEAR(ratio(simulate(kTensor, "", " --serial").result), 1.0, 1e-6);
  const auto gathers = events(s.trace, "AG fwd layer0.mlp");
  const auto reductions = events(s.trace, "RS fwd layer0.mlp");
  const auto kernels = events(s.trace, "fwd layer0.mlp");
  ASSERT_EQ(gathers.count(0), 1u);
  ASSERT_EQ(reductions.count(0), 1u);
  ASSERT_EQ(kernels.count(0), 1u);
  const auto end = [](const nlohmann::json& e) {
    return e.at("ts").get<double>() + e.at("dur").get<double>();
  };
  EXPECT_NEAR(end(gathers.at(0).front()), kernels.at(0).front().at("ts").get<double>(), 1e-6);
  EXPECT_NEAR(end(kernels.at(0).front()), reductions.at(0).front().at("ts").get<double>(), 1e-6);
  EXPECT_EQ(gathers.at(0).front().at("args").at("group"), "tensor");
  EXPECT_EQ(gathers.at(0).front().at("args").at("algorithm"), "priced");
}
#endif

}  // namespace
}  // namespace shardscope
