// plan --pipeline-trace: the fastest pipeline's run as Trace Event JSON that adds up to the plan's iteration,
// written with --out all or none, and its misuses (no pipeline, an input or the plan file as the trace)
// exit 2 before planning.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kEightB = kSource + "/scenarios/llama3.1-8b-tp2-16gpu.yaml";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// Per stage: its compute events back to back never overlap, they and the tail cover its busy time, and the
// last tail ends at the plan's iteration; every micro-batch runs forward and backward once per stage.
TEST(PipelineTraceCli, TheTraceIsTheRunOfThePlansPipeline) {
  const std::string dir = testing::TempDir() + "/pipeline_trace_cli";
  std::filesystem::create_directories(dir);
  const auto r = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --out " + dir +
                                   "/plan.json --pipeline-trace " + dir + "/trace.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto pipeline = read_json(dir + "/plan.json").at("pipeline_search").at("pipelines")[0];
  const auto trace = read_json(dir + "/trace.json");
  const double iteration_us = pipeline.at("iteration_seconds").get<double>() * 1e6;
  EXPECT_NEAR(trace.at("otherData").at("iteration_seconds").get<double>() * 1e6, iteration_us, 1e-3);
  EXPECT_EQ(trace.at("otherData").at("pipeline"), "PP 2 (1f1b) x TP 2 + SP x DP 4 (16 GPUs)");
  std::map<int, double> last_end_us, latest_us;
  std::map<int, int> forwards, backwards, sends;
  std::map<int, std::string> names;
  for (const auto& e : trace.at("traceEvents")) {
    const int stage = e.at("pid").get<int>();
    if (e.at("ph") == "M") {
      if (e.at("name") == "process_name") names[stage] = e.at("args").at("name").get<std::string>();
      continue;
    }
    const double start = e.at("ts").get<double>(), end = start + e.at("dur").get<double>();
    if (e.at("tid") == 1) {
      ++sends[stage];
      EXPECT_EQ(e.at("args").at("to_stage").get<int>(), stage == 0 ? 2 : 1);
      continue;
    }
    EXPECT_GE(start, last_end_us[stage] - 1e-6) << e.dump();
    last_end_us[stage] = end;
    latest_us[stage] = std::max(latest_us[stage], end);
    if (e.at("cat") == "forward") ++forwards[stage];
    if (e.at("cat") == "backward") ++backwards[stage];
  }
  const int m = pipeline.at("micro_batches").get<int>();
  for (int stage : {0, 1}) {
    EXPECT_EQ(forwards[stage], m);
    EXPECT_EQ(backwards[stage], m);
    // Stage 1 sends activations forward, stage 2 their gradients back: one per micro-batch each.
    EXPECT_EQ(sends[stage], m);
  }
  EXPECT_NEAR(std::max(latest_us[0], latest_us[1]), iteration_us, 1e-3);
  // Named as the stage table names them, with the plan's cut.
  const int first = pipeline.at("stages")[0].at("layers").get<int>();
  EXPECT_EQ(names[0], "stage 1: layers 0-" + std::to_string(first - 1) + " + embedding");
  EXPECT_EQ(names[1], "stage 2: layers " + std::to_string(first) + "-31 + head");
}

TEST(PipelineTraceCli, MisusesExitTwoBeforePlanning) {
  const std::string dir = testing::TempDir() + "/pipeline_trace_misuse";
  std::filesystem::create_directories(dir);
  const auto none =
      test::run_command(kBinary + " plan " + kEightB + " --quiet --pipeline-trace " + dir + "/t.json");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--pipeline-trace"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("the scenario has none (parallelism.pipeline, --pp)"), std::string::npos)
      << none.err;
  const auto input =
      test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --pipeline-trace " + kEightB);
  EXPECT_EQ(input.exit_code, 2);
  EXPECT_NE(input.err.find("--pipeline-trace: cannot write"), std::string::npos) << input.err;
  const auto shared = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --out " + dir +
                                        "/same.json --pipeline-trace " + dir + "/same.json");
  EXPECT_EQ(shared.exit_code, 2);
  EXPECT_NE(shared.err.find("--pipeline-trace"), std::string::npos) << shared.err;
  const auto folder = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --pipeline-trace " +
                                        dir + "/no/such/folder/t.json");
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find("--pipeline-trace: cannot write"), std::string::npos) << folder.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/same.json"));
}

// A run too large to trace (8 stages of 4 chunks, 2,000 micro-batches: 8 x (4 + 16,000) + 2,000 x 62 =
// 252,032 events) is refused after the tables, exit 2, and neither file is written.
TEST(PipelineTraceCli, ARunTooLargeToTraceIsRefusedAfterTheTables) {
  const std::string dir = testing::TempDir() + "/pipeline_trace_large";
  std::filesystem::create_directories(dir);
  const auto r =
      test::run_command(kBinary + " plan " + kEightB +
                        " --pp 8 --quiet --runtime deepspeed --set parallelism.pipeline_schedule=interleaved"
                        " --set parallelism.virtual_stages=4 --set training.gradient_accumulation_steps=2000"
                        " --out " +
                        dir + "/plan.json --pipeline-trace " + dir + "/trace.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("Stages of PP 8 (interleaved v4)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("--pipeline-trace: the run of PP 8 (interleaved v4) x TP 2 + SP x DP 1 (16 GPUs) has "
                       "252.03 K events"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing was written"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/plan.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/trace.json"));
}

}  // namespace
}  // namespace shardscope
