// shardscope-validate run-pipeline under `mpirun -n 4` (issue 34, item 4): two 1F1B stages of two
// data-parallel ranks run the stage programs op by op with MPI sends between them; every rank runs its
// stage's 2 m ops and m sends, the stages' ranks agree, and the planner's schedule over the measured parts
// composes to the measured iteration (machine-independent: the parts are this machine's). Refusals name why.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/validate/mpi_launch.hpp"

namespace shardscope::validate {
namespace {

const std::string kScenarios = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/scenarios/";
const std::string kScenario = kScenarios + "pipelines/cpu-4rank-pipeline.yaml";

Launch launch(int ranks, const std::string& arguments) {
  return launch_under_mpi(SHARDSCOPE_MPIEXEC, SHARDSCOPE_VALIDATE_BINARY, ranks, arguments,
                          "mpi-pipeline.log");
}

// The pipeline scenario with its cluster's absolute path and `from` replaced by `to`, written to a file.
std::string pipeline_variant(const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(kScenario);
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  yaml.replace(yaml.find("file: ../cpu-4rank-cluster.yaml"), 31,
               "file: " + kScenarios + "cpu-4rank-cluster.yaml");
  if (!from.empty()) yaml.replace(yaml.find(from), from.size(), to);
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_" + name + ".yaml";
  std::ofstream(path) << yaml;
  return path;
}

class MpiPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(SHARDSCOPE_MPIEXEC).empty()) GTEST_SKIP() << "mpirun was not found at configure time";
  }
};

TEST_F(MpiPipeline, TwoStagesOfTwoRanksRunTheirScheduleAndComposeAsPlanned) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_pipeline.json";
  const Launch r = launch(4, "run-pipeline " + kScenario + " --out " + out + " --iterations 3 --warmup 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("PP 2 (1f1b) x DP 2 (4 GPUs), 4 micro-batches of 2: measured "), std::string::npos)
      << r.output;
  const nlohmann::json j = read_json(out);
  EXPECT_EQ(j.at("pipeline"), "PP 2 (1f1b) x DP 2 (4 GPUs)");
  EXPECT_EQ(j.at("stages"), 2);
  EXPECT_EQ(j.at("data_parallel"), 2);
  const int m = j.at("micro_batches").get<int>();
  EXPECT_EQ(m, 4);
  ASSERT_EQ(j.at("ranks").size(), 4u);
  for (const auto& rank : j.at("ranks")) {
    const int index = rank.at("rank").get<int>();
    SCOPED_TRACE("rank " + std::to_string(index));
    EXPECT_EQ(rank.at("stage").get<int>(), index / 2 + 1);  // stage s's ranks are s x 2 and s x 2 + 1
    EXPECT_EQ(rank.at("data_parallel_rank").get<int>(), index % 2);
    EXPECT_EQ(rank.at("ops").get<int>(), 2 * m);
    EXPECT_EQ(rank.at("sends").get<int>(), m);  // stage 1 sends activations, stage 2 their gradients
    ASSERT_EQ(rank.at("iteration_seconds").size(), 3u);
    const double busy =
        m * (rank.at("forward_seconds").get<double>() + rank.at("backward_seconds").get<double>()) +
        rank.at("tail_seconds").get<double>();
    EXPECT_GT(rank.at("forward_seconds").get<double>(), 0);
    EXPECT_GT(rank.at("backward_seconds").get<double>(), rank.at("forward_seconds").get<double>());
    // A rank is busy for part of its iteration: the rest is the bubble and its waits.
    for (const auto& t : rank.at("iteration_seconds")) EXPECT_GT(t.get<double>(), 0.9 * busy);
  }
  const double measured = j.at("measured_iteration_seconds").get<double>();
  const double composed = j.at("composed_iteration_seconds").get<double>();
  // The composition is the planner's (1F1B's bubble on the measured parts); four ranks sharing fewer cores
  // run their parts at different speeds in the bubble and in the steady state, so the band is wide, yet a
  // schedule that ran the stages one after the other (about 1.8 x) falls outside it.
  EXPECT_NEAR(composed / measured, 1.0, 0.25)
      << "measured " << measured << " s, composed " << composed << " s";
  EXPECT_GT(j.at("planner").at("iteration_seconds").get<double>(), 0);
  EXPECT_EQ(j.at("planner").at("stages").size(), 2u);
}

// Tensor parallelism (issue 33, item 4): TP 2 x DP 2 on four ranks, each rank its GPU's slice with the TP
// all-reduces after its attention and MLP products on its tensor-parallel pair, the plan's collectives on the
// data-parallel ranks of its TP index. Collectives that did not match across ranks would end on the timeout.
// Context parallelism the same way: CP 2 x DP 2, each attention's K/V all-gather (and in backward their
// gradients' reduce-scatter) started beside its kernels on the rank's context pair. Expert parallelism: EP 2
// over the four data-parallel ranks, each experts operator's dispatch and combine all-to-alls on its rank's
// expert pair, the expert states' collectives on the ranks holding the same experts.
TEST_F(MpiPipeline, TensorParallelRanksRunTheirSliceAndItsCollectives) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_tp.json";
  for (const std::string scenario : {"cpu-4rank-tp.yaml", "cpu-4rank-cp.yaml", "cpu-4rank-ep.yaml"}) {
    SCOPED_TRACE(scenario);
    const Launch r =
        launch(4, "run " + kScenarios + scenario + " --strategy shardscope --strategy ddp --out " + out +
                      " --iterations 2 --warmup 1 --timeout 60");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json j = read_json(out);
    ASSERT_EQ(j.at("iterations").size(), 2u);
    for (const auto& it : j.at("iterations")) {
      EXPECT_GT(it.at("iteration_seconds").get<double>(), 0);
      EXPECT_DOUBLE_EQ(it.at("peak_bytes").get<double>(), it.at("program_peak_bytes").get<double>());
      EXPECT_EQ(it.at("measured_seconds_per_rank").size(), 4u);
    }
  }
  const Launch two = launch(2, "run " + kScenarios + "cpu-4rank-tp.yaml --strategy ddp --out " + out);
  EXPECT_EQ(two.exit_code, 2) << two.output;
  EXPECT_NE(two.output.find("are for 4 GPUs (TP 2 x DP 2 (4 GPUs)) but 2 ranks were launched"),
            std::string::npos)
      << two.output;
}

TEST_F(MpiPipeline, WhatTheHarnessDoesNotRunIsRefusedWithTheReason) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_refused.json";
  const Launch three = launch(3, "run-pipeline " + kScenario + " --out " + out);
  EXPECT_EQ(three.exit_code, 2) << three.output;
  EXPECT_NE(three.output.find("the pipeline runs on 4 ranks and 3 were launched (mpirun -n 4)"),
            std::string::npos)
      << three.output;
  // The interleaved schedule is refused by name (the harness runs GPipe and 1F1B); the scenario is written
  // with its cluster's absolute path.
  const std::string interleaved = pipeline_variant("interleaved", "pipeline_schedule: 1f1b",
                                                   "pipeline_schedule: interleaved\n  virtual_stages: 2");
  const Launch looped = launch(4, "run-pipeline " + interleaved + " --out " + out);
  EXPECT_EQ(looped.exit_code, 2) << looped.output;
  EXPECT_NE(looped.output.find("the interleaved schedule is not run by the harness"), std::string::npos)
      << looped.output;
  // Stages of a tensor-parallel mesh, more micro-batches than MPI's tags number, and no pipeline fitting.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {pipeline_variant("tp", "pipeline: 2", "pipeline: 2\n  tensor: 2"),
       "tensor and context parallelism are not run by the harness"},
      {pipeline_variant("many", "gradient_accumulation_steps: 4", "gradient_accumulation_steps: 16002"),
       "16002 micro-batches are more than the 16,000 MPI's tags number"},
      {pipeline_variant("tight", "memory_limit: 1GiB", "memory_limit: 20MiB"),
       "no pipeline fits the memory limit"}};
  for (const auto& [path, why] : refused) {
    const Launch r = launch(4, "run-pipeline " + path + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  }
  const Launch plain = launch(2, "run-pipeline " + kScenarios + "cpu-2rank.yaml --out " + out);
  EXPECT_EQ(plain.exit_code, 2) << plain.output;
  EXPECT_NE(plain.output.find("parallelism.pipeline"), std::string::npos) << plain.output;
  // run and bench execute data-parallel plans: a pipelined scenario goes to run-pipeline, and a
  // tensor-parallel one is refused rather than timed without its TP collectives.
  const Launch staged = launch(4, "run " + kScenario + " --out " + out);
  EXPECT_EQ(staged.exit_code, 2) << staged.output;
  EXPECT_NE(staged.output.find("parallelism.pipeline: pipeline stages are run by run-pipeline"),
            std::string::npos)
      << staged.output;
  const std::string tp = ::testing::TempDir() + std::to_string(::getpid()) + "_tp.yaml";
  {
    std::ifstream in(kScenarios + "cpu-2rank.yaml");
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml = text.str();
    yaml.replace(yaml.find("file: cpu-2rank-cluster.yaml"), 28,
                 "file: " + kScenarios + "cpu-2rank-cluster.yaml");
    std::ofstream(tp) << yaml << "parallelism: {tensor: 2}\n";
  }
  // A mesh to search is refused (the harness runs one), and a mesh on cuda-nccl (not built there; or the
  // backend itself is not).
  const std::string searched = ::testing::TempDir() + std::to_string(::getpid()) + "_search.yaml";
  {
    std::ifstream in(tp);
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml = text.str();
    yaml.replace(yaml.find("tensor: 2"), 9, "tensor: search");
    std::ofstream(searched) << yaml;
  }
  const Launch search = launch(2, "run " + searched + " --strategy ddp --out " + out);
  EXPECT_EQ(search.exit_code, 2) << search.output;
  EXPECT_NE(search.output.find("the harness runs one mesh: give the tensor-parallel degree"),
            std::string::npos)
      << search.output;
  const Launch cuda = launch(2, "--backend cuda-nccl run " + tp + " --strategy ddp --out " + out);
  EXPECT_EQ(cuda.exit_code, 2) << cuda.output;
  EXPECT_TRUE(cuda.output.find("run on the cpu-mpi backend only") != std::string::npos ||
              cuda.output.find("was built without it") != std::string::npos)
      << cuda.output;
  // An expert-parallel mesh is refused there too, naming its own field.
  const Launch experts =
      launch(4, "--backend cuda-nccl run " + kScenarios + "cpu-4rank-ep.yaml --strategy ddp --out " + out);
  EXPECT_EQ(experts.exit_code, 2) << experts.output;
  EXPECT_TRUE(experts.output.find("parallelism.expert: tensor, context and expert parallelism run on the "
                                  "cpu-mpi backend only") != std::string::npos ||
              experts.output.find("was built without it") != std::string::npos)
      << experts.output;
  const Launch sliced = launch(1, "run " + tp + " --strategy shardscope --out " + out);
  EXPECT_EQ(sliced.exit_code, 2) << sliced.output;
  EXPECT_NE(sliced.output.find("but 1 ranks were launched; launch mpirun -n 2"), std::string::npos)
      << sliced.output;
  // A receive that waits past --timeout ends every rank (exit 4) naming what it waited for, never a hang:
  // stage 2's first activation takes longer than a millisecond to come.
  const Launch hurried = launch(4, "run-pipeline " + kScenario + " --out " + out + " --timeout 0.001");
  EXPECT_EQ(hurried.exit_code, 4) << hurried.output;
  EXPECT_NE(hurried.output.find("did not complete within"), std::string::npos) << hurried.output;
}

}  // namespace
}  // namespace shardscope::validate
