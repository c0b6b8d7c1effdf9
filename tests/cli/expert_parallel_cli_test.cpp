// plan, simulate and inspect with expert parallelism (issue 33): --ep search compares the degrees in one
// table, --ep N plans that mesh, the simulator agrees with the planner on it (alone) and shows its
// all-to-alls apart, and bad degrees exit 2.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kMixtral = kSource + "/scenarios/mixtral-8x7b-32gpu-ep.yaml";

TEST(ExpertParallelCli, SearchComparesEveryDegreeInOneTable) {
  const auto text = test::run_command(kBinary + " plan " + kMixtral + " --quiet --no-baselines");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("EP from the DP ranks"), std::string::npos) << text.out;
  for (const char* mesh : {"DP 32 (32 GPUs)", "DP 32 with EP 2 (32 GPUs)", "DP 32 with EP 8 (32 GPUs)"})
    EXPECT_NE(text.out.find(mesh), std::string::npos) << mesh << "\n" << text.out;
  const auto r = test::run_command(kBinary + " plan " + kMixtral + " --quiet --json --no-baselines");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto meshes = nlohmann::json::parse(r.out).at("mesh_search").at("meshes");
  ASSERT_EQ(meshes.size(), 4u);
  for (std::size_t i = 0; i < meshes.size(); ++i) {
    EXPECT_EQ(meshes[i].at("expert").get<int>(), 1 << i);
    EXPECT_EQ(meshes[i].at("data_parallel").get<int>(), 32);  // EP borrows its groups from the DP ranks
  }
}

TEST(ExpertParallelCli, ADegreeAskedForIsPlannedAndInspected) {
  const auto r = test::run_command(kBinary + " plan " + kMixtral + " --ep 8 --quiet --json --no-baselines");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("mesh").at("expert").get<int>(), 8);
  const auto inspect = test::run_command(kBinary + " inspect " + kMixtral + " --ep 8");
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("DP 32 with EP 8 (32 GPUs): one GPU's slice"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("experts / 8 per layer"), std::string::npos) << inspect.out;
  const auto json =
      nlohmann::json::parse(test::run_command(kBinary + " inspect " + kMixtral + " --ep 4 --json").out);
  EXPECT_EQ(json.at("mesh").at("expert").get<int>(), 4);
}

// torchtitan's job config has every degree of the mesh (EP borrows from dp_shard x cp as ours does); the
// fsdp2 and deepspeed exports, data-parallel only, refuse a mesh.
TEST(ExpertParallelCli, TheTorchtitanExportWritesTheMeshsDegrees) {
  const auto dir = std::filesystem::temp_directory_path() / ("ss_ep_export_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "job.toml").string();
  const auto r = test::run_command(kBinary + " plan " + kMixtral +
                                   " --ep 8 --quiet --no-baselines --export torchtitan --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string toml = test::run_command("cat " + out).out;
  for (const char* line :
       {"data_parallel_shard_degree = 32", "tensor_parallel_degree = 1", "context_parallel_degree = 1",
        "expert_parallel_degree = 8", "seq_len = 4096",
        "(mixtral-8x7b on DP 32 with EP 8 (32 GPUs), PaRO's groups 8 data-parallel ranks)"})
    EXPECT_NE(toml.find(line), std::string::npos) << line << "\n" << toml;
  // TP 2 x CP 2 of Llama 3.1 8B: the sequence's ranks and length, and what torchtitan's TP does otherwise.
  const auto tp =
      test::run_command(kBinary + " plan " + kSource + "/scenarios/llama3.1-8b-tp2-16gpu.yaml --cp 2 " +
                        "--set parallelism.sequence_parallel=false --quiet --no-baselines " +
                        "--export torchtitan --out " + out);
  ASSERT_EQ(tp.exit_code, 0) << tp.err;
  const std::string mesh = test::run_command("cat " + out).out;
  for (const char* line :
       {"tensor_parallel_degree = 2", "context_parallel_degree = 2", "seq_len = 8192",
        "data_parallel_shard_degree = 4", "tensor parallelism without sequence parallelism"})
    EXPECT_NE(mesh.find(line), std::string::npos) << line << "\n" << mesh;
  EXPECT_NE(tp.err.find("note: the torchtitan export cannot express tensor parallelism without sequence"),
            std::string::npos)
      << tp.err;
  std::filesystem::remove_all(dir);
}

TEST(ExpertParallelCli, BadDegreesExitTwoNamingTheOption) {
  const std::pair<std::string, std::string> cases[] = {
      {"--ep 3", "--ep 3: expert-parallel degree 3 does not divide the 8 data-parallel ranks of a node"},
      {"--ep 16", "expert-parallel degree 16 does not divide the 8 experts of a layer"},
      {"--ep 0", "--ep 0"},
      {"--ep ''", "--ep"},
      {"--ep 2 --tp 2", "experts sliced by tensor parallelism too are not modelled"},
      {"--ep 8 --out /dev/null --export fsdp2", "--export: the plan runs on a model-parallel mesh"},
      {"--ep 8 --out /dev/null --export deepspeed",
       "the deepspeed export writes data-parallel sharding only"},
  };
  for (const auto& [arguments, message] : cases) {
    const auto r = test::run_command(kBinary + " plan " + kMixtral + " --quiet " + arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << arguments << ": " << r.err;
  }
  const auto dense =
      test::run_command(kBinary + " plan " + kSource + "/scenarios/default.yaml --ep 2 --quiet");
  EXPECT_EQ(dense.exit_code, 2);
  EXPECT_NE(dense.err.find("the model has no experts"), std::string::npos) << dense.err;
}

#ifdef SHARDSCOPE_HAVE_SIM
// Plans the Mixtral scenario with `flags` and `plan_flags` into `dir`, simulates that plan with `flags` and
// `simulate_flags`, and returns the simulator's JSON.
nlohmann::json simulated(const std::filesystem::path& dir, const std::string& flags,
                         const std::string& simulate_flags, const std::string& plan_flags = "") {
  std::string name = flags + plan_flags;
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
  const std::string plan = (dir / (name + ".json")).string();
  const auto planned = test::run_command(kBinary + " plan " + kMixtral + flags + plan_flags +
                                         " --quiet --no-baselines --out " + plan);
  EXPECT_EQ(planned.exit_code, 0) << planned.err;
  const auto r = test::run_command(kBinary + " simulate " + kMixtral + flags + " --plan " + plan + " --json" +
                                   simulate_flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

// The all-to-alls run as pair flows among each expert-parallel group's GPUs, fitted so that alone they take
// the planner's price, and the expert replicas' collectives on the inter group's communicators. With one
// stream per GPU nothing shares a link with them and the simulator's iteration is the planner's, on every
// degree, rings and NCCL alike; with overlap they share NVLink and the NICs with the data-parallel
// collectives in flight: never faster than the planner, and within 5 % of it.
TEST(ExpertParallelCli, TheSimulatorAgreesAloneAndContendsBesideTheDataParallelCollectives) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardscope_ep_cli";
  std::filesystem::create_directories(dir);
  for (const char* degree : {"2", "4", "8"}) {
    for (const char* collectives : {"ring", "nccl"}) {
      const std::string flags = std::string(" --ep ") + degree + " --collectives " + collectives;
      for (const bool serial : {true, false}) {
        const auto j = simulated(dir, flags, serial ? " --serial" : "");
        const double simulated_seconds = j.at("iteration_seconds").get<double>();
        const double predicted = j.at("planner").at("iteration_seconds").get<double>();
        if (serial) {
          EXPECT_NEAR(simulated_seconds, predicted, 1e-6 * predicted) << degree << " " << collectives;
        } else {
          EXPECT_GE(simulated_seconds, predicted * (1 - 1e-9)) << degree << " " << collectives;
          EXPECT_LE(simulated_seconds, predicted * 1.05) << degree << " " << collectives;
        }
      }
    }
  }
  std::filesystem::remove_all(dir);
}

// The timeline shows each all-to-all apart, on the compute stream: the dispatch ends where the experts'
// kernels begin and the combine begins where they end, as pair flows of the expert group; the links carry
// their bytes.
TEST(ExpertParallelCli, TheTraceShowsTheAllToAllsAroundTheExpertsKernels) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shardscope_ep_trace";
  std::filesystem::create_directories(dir);
  const std::string trace = (dir / "trace.json").string();
  const auto j = simulated(dir, " --ep 8", " --trace " + trace, " --micro-batch 1");
  std::ifstream in(trace);
  const auto events = nlohmann::json::parse(in).at("traceEvents");
  std::map<std::string, std::pair<double, double>> kernels;  // GPU 0's compute events, first run of each
  std::vector<nlohmann::json> exchanges;
  for (const auto& e : events) {
    if (e.value("ph", "") != "X" || e.at("pid") != 0 || e.at("tid") != 0) continue;
    const std::string name = e.at("name");
    if (name.rfind("A2A ", 0) == 0) {
      exchanges.push_back(e);
    } else {
      kernels.try_emplace(name, e.at("ts").get<double>(),
                          e.at("ts").get<double>() + e.at("dur").get<double>());
    }
  }
  ASSERT_FALSE(exchanges.empty());
  int dispatches = 0, combines = 0;
  for (const auto& e : exchanges) {
    EXPECT_EQ(e.at("args").at("collective"), "all-to-all");
    EXPECT_EQ(e.at("args").at("group"), "expert");
    EXPECT_EQ(e.at("args").at("algorithm"), "pairs");
    EXPECT_GT(e.at("args").at("bytes").get<double>(), 0);
    const std::string task = e.at("name").get<std::string>().substr(4);
    ASSERT_TRUE(kernels.count(task)) << task;
    const double start = e.at("ts").get<double>(), end = start + e.at("dur").get<double>();
    if (std::abs(end - kernels[task].first) < 1e-6) ++dispatches;
    if (std::abs(start - kernels[task].second) < 1e-6) ++combines;
  }
  EXPECT_GT(dispatches, 0);
  EXPECT_GT(combines, 0);
  std::filesystem::remove_all(dir);
  (void)j;
}
#endif

}  // namespace
}  // namespace shardscope
