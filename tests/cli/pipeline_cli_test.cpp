// plan with pipeline stages (issue 34): --pp prints the pipeline and its stages, the JSON adds up, the file
// is byte-identical run to run, and every option or command that does not take a pipeline exits 2 naming it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kEightB = kSource + "/scenarios/llama3.1-8b-tp2-16gpu.yaml";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PipelineCli, TwoStagesAddUpInTheJson) {
  const auto r = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto search = nlohmann::json::parse(r.out).at("pipeline_search");
  EXPECT_EQ(search.at("schedule"), "1f1b");
  ASSERT_EQ(search.at("pipelines").size(), 1u);
  const auto& p = search.at("pipelines")[0];
  ASSERT_TRUE(p.at("fits").get<bool>());
  EXPECT_TRUE(p.at("chosen").get<bool>());
  EXPECT_EQ(p.at("pipeline"), 2);
  EXPECT_EQ(p.at("tensor"), 2);
  EXPECT_EQ(p.at("data_parallel"), 4);
  EXPECT_EQ(p.at("gpus"), 16);
  int layers = 0;
  double slowest = 0;
  for (const auto& s : p.at("stages")) {
    layers += s.at("layers").get<int>();
    slowest = std::max(slowest, s.at("step_seconds").get<double>());
    EXPECT_LE(s.at("peak_memory_bytes").get<double>(), p.at("peak_memory_bytes").get<double>());
    EXPECT_EQ(s.at("plan").at("batch_size"), p.at("micro_batch"));
    EXPECT_EQ(s.at("plan").at("gradient_accumulation_steps"), p.at("micro_batches"));
  }
  EXPECT_EQ(layers, 32);
  EXPECT_TRUE(p.at("stages")[0].at("embedding").get<bool>());
  EXPECT_TRUE(p.at("stages")[1].at("head").get<bool>());
  // tokens/s = micro-batch x micro-batches x data-parallel ranks x 8192 tokens / iteration.
  const double tokens = p.at("micro_batch").get<double>() * p.at("micro_batches").get<double>() * 4 * 8192;
  EXPECT_NEAR(p.at("tokens_per_second").get<double>(), tokens / p.at("iteration_seconds").get<double>(),
              1e-6);
  // The iteration is at least m steps of the slowest stage (the bubble comes on top).
  EXPECT_GE(p.at("iteration_seconds").get<double>(), p.at("micro_batches").get<double>() * slowest);
}

// Under fsdp2 a stage shards its optimizer states only (parameters and gradients whole through the step),
// and the stage table says so; under fsdp1 it shards as a plain plan does.
TEST(PipelineCli, TheStageTableSaysWhenARuntimeShardsOptimizerStatesOnly) {
  for (const std::string runtime : {"fsdp2", "fsdp1"}) {
    const auto r = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --runtime " + runtime);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("sharded (optimizer states only)") != std::string::npos, runtime == "fsdp2")
        << runtime << "\n"
        << r.out;
  }
}

TEST(PipelineCli, TextShowsThePipelineAndItsStagesAndTheFileIsDeterministic) {
  const std::string dir = testing::TempDir() + "/pipeline_cli";
  std::filesystem::create_directories(dir);
  const auto a = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --out " + dir + "/a.json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("Stages of PP 2 (1f1b) x TP 2 + SP x DP 4 (16 GPUs)"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("+ embedding"), std::string::npos);
  const auto b = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --out " + dir + "/b.json");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(read_file(dir + "/a.json"), read_file(dir + "/b.json"));
  EXPECT_NE(read_file(dir + "/a.json").find("\"pipeline_search\""), std::string::npos);
}

TEST(PipelineCli, InterleavedNamesEachStagesChunks) {
  const auto r = test::run_command(
      kBinary + " plan " + kEightB +
      " --pp 2 --set parallelism.pipeline_schedule=interleaved --set parallelism.virtual_stages=2 "
      "--set training.gradient_accumulation_steps=4 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("PP 2 (interleaved v2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0-7, 16-23 (16) + embedding"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8-15, 24-31 (16) + head"), std::string::npos) << r.out;
}

TEST(PipelineCli, WhatCannotBeBuiltOrDoesNotFitSaysWhy) {
  const auto odd = test::run_command(kBinary + " plan " + kEightB + " --pp 3");
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_NE(odd.err.find("parallelism.pipeline: no pipeline can be built: PP 3: 3 pipeline stages neither "
                         "divide the 2 node(s)"),
            std::string::npos)
      << odd.err;
  const auto small =
      test::run_command(kBinary + " plan " + kEightB + " --pp 2 --set training.memory_limit=8GB");
  EXPECT_EQ(small.exit_code, 3);
  EXPECT_NE(
      small.out.find("no cut of the 32 layers into 2 stages fits at micro-batch 1; the even cut's stage 1 "
                     "(16 layers) lacks"),
      std::string::npos)
      << small.out;
  const auto zero = test::run_command(kBinary + " plan " + kEightB + " --pp 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--pp 0: expected an integer between 1 and"), std::string::npos) << zero.err;
}

TEST(PipelineCli, OptionsAndCommandsThatDoNotTakeAPipelineExitTwoNamingIt) {
  for (const std::string option : {"--memory-sweep", "--top 2"}) {
    const auto r = test::run_command(kBinary + " plan " + kEightB + " --pp 2 " + option);
    EXPECT_EQ(r.exit_code, 2) << option;
    const std::string flag = option.substr(0, option.find(' '));
    EXPECT_NE(r.err.find(flag + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("of a pipelined scenario (parallelism.pipeline, --pp) is not built yet"),
              std::string::npos)
        << r.err;
  }
  for (const std::string command : {"inspect"}) {
    const auto r = test::run_command(kBinary + " " + command + " " + kEightB + " --pp 2");
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("parallelism.pipeline: pipeline stages are planned by `shardscope plan` and "
                         "simulated by `shardscope simulate` only"),
              std::string::npos)
        << r.err;
  }
}

// --tokens: each fitting pipeline's time to train on the whole scenario's GPUs, the fastest first; the cost
// with --price-per-gpu-hour.
TEST(PipelineCli, TimeToTrainListsEachFittingPipelineFastestFirst) {
  const auto r = test::run_command(kBinary + " plan " + kEightB +
                                   " --pp search --quiet --json --tokens 1T --price-per-gpu-hour 2.5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& budget = j.at("time_to_train");
  EXPECT_EQ(budget.at("gpus"), 16);
  EXPECT_EQ(budget.at("tokens"), 1e12);
  const auto& pipelines = j.at("pipeline_search").at("pipelines");
  std::size_t fitting = 0;
  double chosen_seconds = 0;
  for (const auto& p : pipelines) {
    if (!p.at("fits").get<bool>()) continue;
    ++fitting;
    if (p.at("chosen").get<bool>()) chosen_seconds = p.at("iteration_seconds").get<double>();
  }
  const auto& rows = budget.at("strategies");
  ASSERT_EQ(rows.size(), fitting);
  ASSERT_GE(fitting, 2u);
  const auto& first = rows[0];
  EXPECT_NEAR(first.at("seconds").get<double>(), first.at("iterations").get<double>() * chosen_seconds,
              1e-9 * first.at("seconds").get<double>());
  EXPECT_NEAR(first.at("iterations").get<double>(),
              std::ceil(1e12 / first.at("tokens_per_iteration").get<double>()), 0);
  for (const auto& row : rows) {
    EXPECT_NEAR(row.at("gpu_hours").get<double>(), row.at("seconds").get<double>() * 16 / 3600, 1e-6);
    EXPECT_NEAR(row.at("cost").get<double>(), row.at("gpu_hours").get<double>() * 2.5, 1e-6);
    EXPECT_LE(first.at("seconds").get<double>(), row.at("seconds").get<double>());
  }
  const auto text = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --tokens 300B");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Time to train on 300.00 B tokens, 16 GPUs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  PP 2 (1f1b) x TP 2 + SP x DP 4 (16 GPUs)"), std::string::npos) << text.out;
  const auto bad = test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --tokens 0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--tokens: "), std::string::npos) << bad.err;
}

// --target-tokens-per-second with pipeline stages: the fewest nodes whose fastest pipeline reaches the rate,
// counts the stages cannot be placed on refused by name, and the pipeline tables at the count found.
TEST(PipelineCli, TheTargetSearchFindsTheFewestNodesForAPipeline) {
  const auto r = test::run_command(kBinary + " plan " + kEightB +
                                   " --pp 2 --quiet --json --target-tokens-per-second 60K");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& target = j.at("target");
  const int nodes = target.at("nodes").get<int>();
  int fewest_reaching = 0, invalid = 0;
  for (const auto& p : target.at("curve")) {
    if (p.contains("refusal")) {
      ++invalid;
      EXPECT_NE(p.at("refusal").get<std::string>().find("parallelism.pipeline"), std::string::npos);
      EXPECT_NE(p.at("nodes").get<int>() % 2, 0);  // 2 stages take whole nodes, or half of one node
      continue;
    }
    if (p.at("fits").get<bool>() && p.at("tokens_per_second").get<double>() >= 60e3 && fewest_reaching == 0)
      fewest_reaching = p.at("nodes").get<int>();
  }
  EXPECT_EQ(nodes, fewest_reaching);
  EXPECT_GE(invalid, 1);  // bisection between 2 and 4 nodes tries 3
  const auto& pipelines = j.at("pipeline_search").at("pipelines");
  ASSERT_EQ(pipelines.size(), 1u);
  EXPECT_EQ(pipelines[0].at("gpus").get<int>(), nodes * 8);  // the tables are planned at the count found
  EXPECT_GE(pipelines[0].at("tokens_per_second").get<double>(), 60e3);
  const auto text =
      test::run_command(kBinary + " plan " + kEightB + " --pp 2 --quiet --target-tokens-per-second 60K");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Target 60.00 K tokens/s on dgx-a100 nodes of 8 GPUs: " + std::to_string(nodes) +
                          " node(s)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("invalid (below)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\nPipelines (llama3.1-8b on " + std::to_string(nodes * 8) + " x"),
            std::string::npos)
      << text.out;
}

// --export torchtitan writes the fastest pipeline's job-config fields to --out; another format is refused
// naming --export, with nothing written.
TEST(PipelineCli, ExportWritesTorchtitansPipelineFields) {
  const std::string dir = (std::filesystem::temp_directory_path() / "pipeline-cli-export").string();
  std::filesystem::create_directories(dir);
  const auto r = test::run_command(kBinary + " plan " + kEightB +
                                   " --pp 2 --quiet --export torchtitan --out " + dir + "/pp.toml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string toml = read_file(dir + "/pp.toml");
  EXPECT_NE(toml.find("pipeline_parallel_degree = 2\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("tensor_parallel_degree = 2\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("module_fqns_per_model_part = [\n    [\"tok_embeddings\", \"layers.0\""),
            std::string::npos)
      << toml;
  const auto other = test::run_command(kBinary + " plan " + kEightB +
                                       " --pp 2 --quiet --export fsdp2 --out " + dir + "/pp.py");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("--export: a pipeline exports to torchtitan only"), std::string::npos)
      << other.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/pp.py"));
  // Nothing fits: exit 3 and no file (not the JSON in the TOML's place).
  const auto tight = test::run_command(
      kBinary + " plan " + kEightB +
      " --pp 2 --quiet --set training.memory_limit=2GB --export torchtitan --out " + dir + "/tight.toml");
  EXPECT_EQ(tight.exit_code, 3) << tight.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/tight.toml"));
  std::filesystem::remove_all(dir);
}

// Stages inside nodes, more than 16 of them: the table's layer column gives runs of equal counts.
TEST(PipelineCli, ManyStagesInsideNodesShowRunsOfTheirLayers) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "pipeline-cli-many-stages.yaml").string();
  std::ofstream(path) << "model:\n  transformer: {layers: 40, hidden: 512, heads: 8, vocab: 32000, "
                         "sequence_length: 512, mlp: gated, norm: rmsnorm, positions: rotary}\n"
                         "cluster: {preset: dgx-a100, nodes: 4}\n"
                         "training: {micro_batch: 1, gradient_accumulation_steps: 32}\n";
  const auto r = test::run_command(kBinary + " plan " + path + " --pp 32 --quiet");
  std::filesystem::remove(path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("PP 32 (1f1b) x DP 1 (32 GPUs)"), std::string::npos) << r.out;
  // 40 layers over 32 stages as runs "stages x layers" in the cut's order ("2 x 4 / 1 x 3 / 29 x 1"): the
  // runs count 32 stages and 40 layers.
  const std::size_t row = r.out.find("PP 32 (1f1b)");
  const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
  std::istringstream runs(line.substr(line.find("GiB") + 3));
  int stages = 0, layers = 0, count = 0, each = 0;
  std::string times, slash;
  while (runs >> count >> times >> each) {
    EXPECT_EQ(times, "x") << line;
    stages += count;
    layers += count * each;
    runs >> slash;
  }
  EXPECT_EQ(stages, 32) << line;
  EXPECT_EQ(layers, 40) << line;
}

}  // namespace
}  // namespace shardscope
