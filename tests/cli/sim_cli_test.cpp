// CLI tests of the SimGrid commands: simulate JSON keys and determinism, a valid Chrome trace, collective.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

TEST(SimCli, SimulateJsonHasTheDocumentedKeysAndIsDeterministic) {
  const std::string command = kBinary + " simulate --json " + kSource + "/scenarios/default.yaml";
  const auto a = test::run_command(command);
  const auto b = test::run_command(command);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_GT(j.at("iteration_seconds").get<double>(), 0);
  EXPECT_GT(j.at("samples_per_second").get<double>(), 0);
  EXPECT_GT(j.at("tokens_per_second").get<double>(), 0);
  ASSERT_EQ(j.at("gpus").size(), 8u);
  for (const char* key : {"rank", "peak_memory_bytes", "compute_seconds", "exposed_comm_seconds"}) {
    EXPECT_TRUE(j.at("gpus")[0].contains(key)) << key;
  }
}

TEST(SimCli, TraceIsValidTraceEventJson) {
  const auto path =
      std::filesystem::temp_directory_path() / ("shardscope_trace_" + std::to_string(::getpid()) + ".json");
  const auto r = test::run_command(kBinary + " simulate " + kSource +
                                   "/scenarios/default.yaml --strategy fsdp --trace " + path.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(path);
  const auto trace = nlohmann::json::parse(in);
  const auto& events = trace.at("traceEvents");
  int complete = 0, counters = 0, names = 0;
  for (const auto& e : events) {
    const std::string ph = e.at("ph");
    ASSERT_TRUE(e.contains("pid"));
    if (ph == "X") {
      ++complete;
      EXPECT_GE(e.at("dur").get<double>(), 0);
      EXPECT_TRUE(e.contains("ts") && e.contains("tid") && e.contains("name"));
    } else if (ph == "C") {
      ++counters;
      EXPECT_TRUE(e.at("args").contains("activations"));
    } else if (ph == "M") {
      ++names;
    }
  }
  EXPECT_GT(complete, 100);
  EXPECT_GT(counters, 100);
  EXPECT_EQ(names, 8 * 3);  // process name + two thread names per traced GPU
  std::filesystem::remove(path);
}

TEST(SimCli, LinksCsvHasAHeaderAndOneRowPerLinkDirection) {
  const auto path =
      std::filesystem::temp_directory_path() / ("shardscope_links_" + std::to_string(::getpid()) + ".csv");
  const auto r = test::run_command(kBinary + " simulate " + kSource + "/scenarios/default.yaml --links " +
                                   path.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(path);
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header, "link,direction,bandwidth_bytes_per_second,bytes,utilisation");
  int rows = 0;
  while (std::getline(in, row)) ++rows;
  EXPECT_EQ(rows, 26);  // 8 GPU links, 4 switch uplinks and 1 socket link, both directions
  std::filesystem::remove(path);
}

TEST(SimCli, SimulateCompareShowsBothPredictions) {
  const auto r =
      test::run_command(kBinary + " simulate --serial --compare " + kSource + "/scenarios/default.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("planner"), std::string::npos);
  EXPECT_NE(r.out.find("+0.00 %"), std::string::npos) << r.out;  // serial mode adds up like the planner
}

TEST(SimCli, SimulateRejectsAPlanForAnotherModelAndAnUnknownStrategy) {
  const auto path =
      std::filesystem::temp_directory_path() / ("shardscope_badplan_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path)
      << R"({"strategy": "x", "batch_size": 1, "gradient_accumulation_steps": 1, "group_size": 8, "operators": []})";
  auto r =
      test::run_command(kBinary + " simulate " + kSource + "/scenarios/default.yaml --plan " + path.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("plan.operators: the plan has 0 operators but the model has 98"), std::string::npos)
      << r.err;
  r = test::run_command(kBinary + " simulate " + kSource + "/scenarios/default.yaml --strategy zero-7");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown strategy 'zero-7'"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

TEST(SimCli, CollectiveJsonReportsNcclTestsBandwidths) {
  const auto r = test::run_command(kBinary +
                                   " collective --cluster dgx-a100 --gpus 16 --op all-reduce --algo hring "
                                   "--bytes 1GiB --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double seconds = j.at("seconds"), algbw = j.at("algbw_gbps"), busbw = j.at("busbw_gbps");
  EXPECT_NEAR(algbw, 1073741824.0 / seconds / 1e9, 1e-9 * algbw);
  EXPECT_NEAR(busbw, algbw * 2 * 15 / 16, 1e-9 * busbw);
  EXPECT_NEAR(seconds, j.at("alpha_beta_seconds").get<double>(), 1e-9 * seconds);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("shardscope_simcli_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(SimCli, SimulateErrors) {
  const std::string scenario = kSource + "/scenarios/default.yaml";
  // A strategy that does not fit: exit 3 with the memory it needs.
  auto r = test::run_command(kBinary + " simulate " + scenario + " --strategy ddp");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("strategy ddp does not fit the memory limit (needs"), std::string::npos) << r.err;
  // A bad bucket size.
  r = test::run_command(kBinary + " simulate " + scenario + " --bucket lots");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--bucket: bucket: expected a byte size"), std::string::npos) << r.err;
  // An output file that cannot be written.
  r = test::run_command(kBinary + " simulate " + scenario + " --trace /nonexistent-dir/t.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write /nonexistent-dir/t.json"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " simulate " + scenario + " --links /nonexistent-dir/l.csv");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write /nonexistent-dir/l.csv"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " plan " + scenario + " --no-baselines --out /nonexistent-dir/p.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write /nonexistent-dir/p.json"), std::string::npos) << r.err;
}

TEST(SimCli, ThePaperCostModelCannotBeSimulated) {
  const std::string path =
      write_temp("paper.yaml",
                 "model:\n  operators:\n    - {name: a, parameters: 1000, paper: {gamma: 1ms, "
                 "parameter_bytes: 2000, model_bytes: 16000}}\n"
                 "cluster: {preset: titan-rtx-8-pcie3}\n"
                 "planner: {cost_model: paper, paper: {alpha: 10us, beta: 10GB/s}}\n");
  const auto r = test::run_command(kBinary + " simulate " + path + " --strategy osdp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("planner.cost_model: the simulator needs the topology cost model"), std::string::npos)
      << r.err;
  std::filesystem::remove(path);
}

TEST(SimCli, CollectiveRequestErrors) {
  auto r = test::run_command(kBinary + " collective --cluster dgx-a100 --bytes 1MiB --concurrent 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("concurrent: expected 1 to 64 copies"), std::string::npos) << r.err;
  const std::string lonely =
      write_temp("lonely.yaml",
                 "name: lonely\nnodes: 1\ngpus_per_node: 2\n"
                 "gpu: {name: g, peak_fp16: 1TFLOPS, peak_fp32: 1TFLOPS, memory: 1GiB, "
                 "hbm_bandwidth: 1GB/s}\nintra_node: {kind: nvswitch, gpu_bandwidth: 1GB/s}\n");
  r = test::run_command(kBinary + " collective --cluster " + lonely + " --gpus 4 --bytes 1MiB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the cluster has no network to join several nodes"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " collective --cluster dgx-a100 --gpus 12 --bytes 1MiB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpus: expected a multiple of the 8 GPUs per node, got 12"), std::string::npos)
      << r.err;
  std::filesystem::remove(lonely);
}

TEST(SimCli, AlgorithmAndStrategyTyposGetSuggestions) {
  auto r = test::run_command(kBinary + " collective --cluster dgx-a100 --bytes 1MiB --algo hrng");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--algo: unknown algorithm 'hrng'; did you mean 'hring'?"), std::string::npos)
      << r.err;
  r = test::run_command(kBinary + " collective --cluster dgx-a100 --bytes 1MiB --algo tree");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--algo: unknown algorithm 'tree'; expected one of ring, hring, horing"),
            std::string::npos)
      << r.err;
  r = test::run_command(kBinary + " collective --cluster dgx-a100 --bytes 1MiB --op all-redcue");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'all-reduce'?"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " simulate " + kSource + "/scenarios/default.yaml --strategy fdsp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown strategy 'fdsp'; did you mean 'fsdp'?"), std::string::npos) << r.err;
  // The help texts come from the same tables.
  r = test::run_command(kBinary + " collective --help");
  EXPECT_NE(r.out.find("hring: hierarchical"), std::string::npos) << r.out;
  r = test::run_command(kBinary + " simulate --help");
  EXPECT_NE(r.out.find("zero++"), std::string::npos) << r.out;
}

TEST(SimCli, CollectiveBadSizeIsAnError) {
  const auto r = test::run_command(kBinary + " collective --cluster dgx-a100 --bytes lots");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bytes"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace shardscope
