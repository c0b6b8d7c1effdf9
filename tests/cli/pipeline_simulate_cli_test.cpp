// simulate of a pipelined scenario (issue 34, item 4): every shipped pipelined scenario simulated within 5 %
// of the planner, its JSON byte-identical run to run, its refusals named.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kEightB = kSource + "/scenarios/llama3.1-8b-tp2-16gpu.yaml";

// scenarios/pipelines and validate/scenarios/pipelines (the MPI harness's).
std::vector<std::string> shipped_pipelined_scenarios() {
  std::vector<std::string> files;
  for (const std::string dir : {"/scenarios/pipelines", "/validate/scenarios/pipelines"})
    for (const auto& e : std::filesystem::directory_iterator(kSource + dir))
      if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(PipelineSimulateCli, EveryShippedPipelinedScenarioIsWithinFivePercentOfThePlanner) {
  const std::vector<std::string> files = shipped_pipelined_scenarios();
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const auto r = test::run_command(kBinary + " simulate " + file + " --json --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const double planned = j.at("planner").at("iteration_seconds").get<double>();
    const double simulated = j.at("simulator").at("iteration_seconds").get<double>();
    EXPECT_LE(std::abs(simulated - planned), 0.05 * planned) << planned << " s planned";
    for (const auto& stage : j.at("stages")) {
      const double step = stage.at("planner").at("step_seconds").get<double>();
      EXPECT_NEAR(stage.at("simulator").at("step_seconds").get<double>(), step, 1e-6 * step);
    }
    EXPECT_GT(j.at("simulator").at("sends").get<std::int64_t>(), 0);
  }
}

// reproduce --simulate runs the rows with pipeline stages on the pipeline simulator: torchtitan's 3D rows
// (512 GPUs, 64 simulated hosts) get a simulated rate, equal to the planner's where no send waits on another.
TEST(PipelineSimulateCli, ReproduceSimulatesThePublishedPipelineRows) {
  const std::string json = (std::filesystem::temp_directory_path() / "pipeline-reproduce.json").string();
  const auto r = test::run_command(kBinary + " reproduce " + kSource +
                                   "/validate/published/torchtitan-3d-h100.yaml --simulate --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  std::filesystem::remove(json);
  const auto& rows = j.at("sources").at(0).at("rows");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    ASSERT_TRUE(row.at("simulated_tokens_per_second_per_gpu").is_number()) << row.dump();
    const double planned = row.at("predicted_tokens_per_second_per_gpu").get<double>();
    EXPECT_NEAR(row.at("simulated_tokens_per_second_per_gpu").get<double>(), planned, 1e-6 * planned);
  }
  // Past --sim-max-gpus hosts a row is not simulated.
  const auto few = test::run_command(
      kBinary + " reproduce " + kSource +
      "/validate/published/torchtitan-3d-h100.yaml --simulate --sim-max-gpus 32 --json " + json);
  ASSERT_EQ(few.exit_code, 0) << few.err;
  std::ifstream again(json);
  const auto k = nlohmann::json::parse(again);
  std::filesystem::remove(json);
  for (const auto& row : k.at("sources").at(0).at("rows"))
    EXPECT_TRUE(row.at("simulated_tokens_per_second_per_gpu").is_null()) << row.dump();
}

TEST(PipelineSimulateCli, TextShowsEachStageAndTheIterationBesideThePlanners) {
  const auto r = test::run_command(kBinary + " simulate " + kEightB + " --pp 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Pipeline PP 2 (1f1b) x TP 2 + SP x DP 4 (16 GPUs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("step (plan)  step (sim)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0-16 (17) + embedding"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iteration: planner "), std::string::npos) << r.out;
  const auto again = test::run_command(kBinary + " simulate " + kEightB + " --pp 2 --quiet --json");
  const auto third = test::run_command(kBinary + " simulate " + kEightB + " --pp 2 --quiet --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, third.out);  // same inputs, byte-identical JSON
}

// --trace: the simulated run of each stage's first GPU, in plan --pipeline-trace's format: every stage's 2 m
// v ops, one after another, its tail last, its sends from its ops' ends; the iteration the simulator's.
TEST(PipelineSimulateCli, TheTraceIsTheSimulatedRun) {
  const std::string dir = (std::filesystem::temp_directory_path() / "pipeline-simulate-trace").string();
  std::filesystem::create_directories(dir);
  const std::string trace = dir + "/trace.json";
  const auto r =
      test::run_command(kBinary + " simulate " + kEightB +
                        " --pp 4 --quiet --json --set parallelism.pipeline_schedule=interleaved "
                        "--set parallelism.virtual_stages=2 --set training.gradient_accumulation_steps=8"
                        " --trace " +
                        trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto result = nlohmann::json::parse(r.out);
  std::ifstream in(trace);
  const auto t = nlohmann::json::parse(in);
  EXPECT_NEAR(t.at("otherData").at("iteration_seconds").get<double>(),
              result.at("simulator").at("iteration_seconds").get<double>(), 1e-12);
  EXPECT_NE(t.at("otherData").at("simulated_by").get<std::string>().find("SimGrid"), std::string::npos);
  std::vector<int> ops(4, 0), sends(4, 0);
  std::vector<double> last_end(4, 0.0);
  double latest = 0;
  for (const auto& e : t.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    const int stage = e.at("pid").get<int>();
    const double start = e.at("ts").get<double>(), end = start + e.at("dur").get<double>();
    latest = std::max(latest, end);
    if (e.at("cat") == "send") {
      ++sends[static_cast<std::size_t>(stage)];
      EXPECT_GT(e.at("dur").get<double>(), 0);
      continue;
    }
    EXPECT_GE(start, last_end[static_cast<std::size_t>(stage)] - 1e-6);  // no overlap on a stage
    last_end[static_cast<std::size_t>(stage)] = end;
    if (e.at("cat") != "tail") ++ops[static_cast<std::size_t>(stage)];
  }
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(ops[static_cast<std::size_t>(s)], 2 * 8 * 2);
    // Every chunk sends each way, but the model's first chunk's backward and last chunk's forward.
    EXPECT_EQ(sends[static_cast<std::size_t>(s)], s == 0 || s == 3 ? 2 * 8 * 2 - 8 : 2 * 8 * 2);
  }
  EXPECT_NEAR(latest * 1e-6, result.at("simulator").at("iteration_seconds").get<double>(), 1e-9);
  std::filesystem::remove_all(dir);
}

// A trace over the events a trace holds is refused before anything is simulated, nothing written.
TEST(PipelineSimulateCli, ATraceTooLargeIsRefusedBeforeSimulating) {
  const std::string dir = (std::filesystem::temp_directory_path() / "pipeline-simulate-large").string();
  std::filesystem::create_directories(dir);
  const auto r =
      test::run_command(kBinary + " simulate " + kEightB +
                        " --pp 8 --quiet --runtime deepspeed --set parallelism.pipeline_schedule=interleaved"
                        " --set parallelism.virtual_stages=4 --set training.gradient_accumulation_steps=2000"
                        " --trace " +
                        dir + "/trace.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--trace: the run of PP 8 (interleaved v4)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was simulated"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/trace.json"));
  std::filesystem::remove_all(dir);
}

TEST(PipelineSimulateCli, OptionsItDoesNotTakeExitTwoNamingThem) {
  for (const std::string option :
       {"--plan x.json", "--strategy fsdp", "--links l.csv", "--result-json r.json"}) {
    const auto r = test::run_command(kBinary + " simulate " + kEightB + " --pp 2 --quiet " + option);
    EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.err;
    const std::string flag = option.substr(0, option.find(' '));
    EXPECT_NE(r.err.find(flag + ": is not built yet for a pipelined scenario"), std::string::npos) << r.err;
  }
}

TEST(PipelineSimulateCli, WhatCannotBeBuiltOrDoesNotFitExitsAsPlanDoes) {
  const auto many = test::run_command(kBinary + " simulate " + kEightB + " --pp 64 --quiet");
  EXPECT_EQ(many.exit_code, 2) << many.err;
  EXPECT_NE(many.err.find("parallelism.pipeline"), std::string::npos) << many.err;
  const std::string path = (std::filesystem::temp_directory_path() / "pipeline-simulate-tight.yaml").string();
  std::ofstream(path) << "model:\n  transformer: {layers: 8, hidden: 8192, heads: 64, vocab: 32000, "
                         "sequence_length: 8192, mlp: gated, norm: rmsnorm, positions: rotary}\n"
                         "cluster: {preset: dgx-a100, nodes: 2}\n"
                         "training: {micro_batch: 1, gradient_accumulation_steps: 4, memory_limit: 2GB}\n"
                         "parallelism: {pipeline: 2}\n";
  const auto tight = test::run_command(kBinary + " simulate " + path + " --quiet");
  std::filesystem::remove(path);
  EXPECT_EQ(tight.exit_code, 3) << tight.err;
  EXPECT_NE(tight.err.find("no pipeline fits the memory limit\n  PP 2 (1f1b) x DP 8 (16 GPUs): "),
            std::string::npos)
      << tight.err;
}

}  // namespace
}  // namespace shardscope
