// The cpu-mpi loop under `mpirun -n 2 --oversubscribe`: bench and run on the CPU scenario write measurements
// that follow the contract (busbw recomputed, the counting allocator's peak = the program's prediction within
// 2 %), describe writes a cluster the planner reads, and a failing, stalled or mis-launched job ends with a
// clear error instead of hanging.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "planner/io/cluster_presets.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/plan_json.hpp"
#include "tests/validate/mpi_launch.hpp"
#include "validate/core/bus_bandwidth.hpp"

namespace shardscope::validate {
namespace {

const std::string kScenario = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/scenarios/cpu-2rank.yaml";

// Runs shardscope-validate under mpirun with `ranks` ranks.
Launch launch(int ranks, const std::string& arguments) {
  return launch_under_mpi(SHARDSCOPE_MPIEXEC, SHARDSCOPE_VALIDATE_BINARY, ranks, arguments, "mpi-loop.log");
}

class MpiLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(SHARDSCOPE_MPIEXEC).empty()) GTEST_SKIP() << "mpirun was not found at configure time";
  }
};

TEST_F(MpiLoop, BenchFollowsNcclTestsDefinitionsAndDescribesTheMachine) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_bench.json";
  const Launch run =
      launch(2, "bench --scenario " + kScenario +
                    " --strategy zero-3 --max-bytes 1048576 --iterations 5 --min-seconds 0.02 --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json j = read_json(out);
  EXPECT_EQ(j["format"], "shardscope-measurements");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["machine"]["backend"], "cpu-mpi");
  EXPECT_EQ(j["machine"]["ranks"], 2);
  EXPECT_EQ(j["machine"]["hostnames"].size(), 2u);
  int ops[3] = {};
  for (const auto& c : j["collectives"]) {
    const std::string op = c["op"];
    const int n = c["group_size"];
    const double bytes = c["bytes"], seconds = c["time_seconds"];
    const CollectiveKind kind = op == "all_reduce"   ? CollectiveKind::all_reduce
                                : op == "all_gather" ? CollectiveKind::all_gather
                                                     : CollectiveKind::reduce_scatter;
    ops[static_cast<int>(kind)]++;
    ASSERT_GT(seconds, 0);
    EXPECT_DOUBLE_EQ(c["algbw_GBps"].get<double>(), bytes / seconds / 1e9);
    const double factor = kind == CollectiveKind::all_reduce ? 2.0 * (n - 1) / n : (n - 1.0) / n;
    EXPECT_DOUBLE_EQ(c["busbw_GBps"].get<double>(), bytes / seconds / 1e9 * factor);
    // nccl-tests' count: per-rank elements; all-gather and reduce-scatter sizes are the total.
    const double count = c["count"];
    EXPECT_DOUBLE_EQ(bytes, kind == CollectiveKind::all_reduce ? 4 * count : 4 * count * n);
  }
  EXPECT_GT(ops[0], 0);
  EXPECT_GT(ops[1], 0);
  EXPECT_GT(ops[2], 0);
  ASSERT_FALSE(j["gemms"].empty());
  for (const auto& g : j["gemms"]) {
    const double flops =
        2.0 * g["m"].get<double>() * g["n"].get<double>() * g["k"].get<double>() * g["batch"].get<double>();
    EXPECT_DOUBLE_EQ(g["flops"].get<double>(), flops);
    EXPECT_GT(g["flops_per_second"].get<double>(), 0);
  }
  EXPECT_FALSE(j["elementwise"].empty());
  EXPECT_FALSE(j["copies"].empty());
  ASSERT_FALSE(j["overlap"].empty());
  EXPECT_GT(j["overlap"][0]["compute_with_comm_seconds"].get<double>(), 0);

  const std::string yaml = ::testing::TempDir() + std::to_string(::getpid()) + "_machine.yaml";
  const Launch describe = launch(1, "describe --measurements " + out + " --out " + yaml);
  ASSERT_EQ(describe.exit_code, 0) << describe.output;
  const Cluster cluster = load_cluster(yaml);
  EXPECT_EQ(cluster.gpus(), 2);
  EXPECT_GT(cluster.gpu.peak_flops_per_second_fp32, 1e8);
}

TEST_F(MpiLoop, RunMeasuresEveryPlanAndThePeakIsThePredictedOne) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_run.json";
  const Launch run =
      launch(2, "run " + kScenario + " --warmup 0 --iterations 1 --compute-scale 0.25 --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::cout << run.output;
  const nlohmann::json j = read_json(out);
  ASSERT_EQ(j["iterations"].size(), 5u);
  for (const auto& it : j["iterations"]) {
    const std::string strategy = it["strategy"];
    EXPECT_GT(it["iteration_seconds"].get<double>(), 0) << strategy;
    EXPECT_EQ(it["iteration_seconds_per_rank"].size(), 2u);
    ASSERT_EQ(it["peak_bytes_per_rank"].size(), 2u);
    const double predicted = it["program_peak_bytes"];
    for (const auto& peak : it["peak_bytes_per_rank"]) {
      EXPECT_NEAR(peak.get<double>(), predicted, 0.02 * predicted) << strategy;
    }
    EXPECT_FALSE(it["tasks"].empty());
    EXPECT_EQ(it["plan_digest"].get<std::string>().size(), 16u);
  }
}

// Interleaved (the default: the plans take turns, one iteration each per round) and --sequential run the
// same plans: the same digests and counted peaks, each plan's time the median of its own iterations.
TEST_F(MpiLoop, InterleavedAndSequentialRunsMeasureTheSamePlans) {
  std::vector<nlohmann::json> runs;
  for (const std::string order : {"", " --sequential"}) {
    const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_order.json";
    const Launch run =
        launch(2, "run " + kScenario + " --strategy ddp zero-3 split --warmup 1 --iterations 3 " +
                      "--compute-scale 0.25" + order + " --out " + out);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    runs.push_back(read_json(out));
    std::filesystem::remove(out);
  }
  ASSERT_EQ(runs[0]["iterations"].size(), 3u);
  ASSERT_EQ(runs[1]["iterations"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& a = runs[0]["iterations"][i];
    const auto& b = runs[1]["iterations"][i];
    EXPECT_EQ(a["strategy"], b["strategy"]);
    EXPECT_EQ(a["plan_digest"], b["plan_digest"]);
    EXPECT_EQ(a["peak_bytes_per_rank"], b["peak_bytes_per_rank"]) << a["strategy"];
    EXPECT_EQ(a["measured_iterations"], 3);
    EXPECT_GT(a["iteration_seconds"].get<double>(), 0);
    // Freed host memory is reused: MPI's temporary buffers (a reduce-scatter of the 8 MiB embedding takes
    // 2,048 pages) touch no fresh page once warmed up.
    for (const auto& faults : a["page_faults_per_rank"])
      EXPECT_LT(faults.get<double>(), 512) << a["strategy"];
  }
}

TEST_F(MpiLoop, TooFewRanksForThePlanIsAClearError) {
  const Launch run = launch(1, "run " + kScenario + " --strategy ddp --out -");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("1 ranks were launched"), std::string::npos) << run.output;
}

// Issue 30, 11 and 19: an --out no file can be written at, and a size range that measures nothing, are
// refused before any measuring, with the reason (exit 2).
TEST_F(MpiLoop, ABadOutputOrSizeRangeIsRefusedBeforeMeasuring) {
  const Launch run = launch(2, "run " + kScenario + " --out /nonexistent-folder/run.json");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find(
                "--out: cannot write /nonexistent-folder/run.json: No such file or directory (no folder "
                "/nonexistent-folder)"),
            std::string::npos)
      << run.output;
  EXPECT_LT(run.seconds, 20);
  const Launch bench = launch(1, "bench --min-bytes 1048576 --max-bytes 1024 --out -");
  EXPECT_EQ(bench.exit_code, 2) << bench.output;
  EXPECT_NE(bench.output.find("--min-bytes 1048576 is above --max-bytes 1024"), std::string::npos)
      << bench.output;
}

// Issue 30, 20: describe read version 2 and negative times, and its errors had no line; it now checks the
// file as calibrate does (file:line: field), and names the file when a section it needs is empty. A plain
// process (--no-mpi), so this runs without mpirun too.
TEST(ValidateDescribe, BadMeasurementsNameTheLineAndField) {
  std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) +
                   "/validate/data/cpu-2rank-serial-repeat-2/run-10/bench.json");
  const nlohmann::json base = nlohmann::json::parse(in);
  // `bad` is the field's text in the file (its line is the one blamed, 0: the whole file); `message` what the
  // error says after the line.
  const auto expect_refused = [&](const nlohmann::json& j, const std::string& bad,
                                  const std::string& message) {
    const std::string file = ::testing::TempDir() + std::to_string(::getpid()) + "_describe.json";
    const std::string text = j.dump(1);
    std::ofstream(file) << text;
    const std::string line =
        bad.empty() ? ""
                    : ":" + std::to_string(1 + std::count(text.begin(), text.begin() + text.find(bad), '\n'));
    const Launch r = launch_alone(SHARDSCOPE_VALIDATE_BINARY,
                                  "--no-mpi describe --measurements " + file + " --out -", "describe.log");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("error: " + file + line + ": " + message), std::string::npos) << r.output;
    std::remove(file.c_str());
  };
  nlohmann::json v2 = base;
  v2["version"] = 2;
  expect_refused(v2, "\"version\": 2", "version: expected 1");
  nlohmann::json negative = base;
  negative["collectives"][0]["time_seconds"] = -1;
  expect_refused(negative, "\"time_seconds\": -1",
                 "collectives[0].time_seconds: expected a number from 0 to 1e+06, got -1");
  nlohmann::json memory = base;
  memory["machine"]["memory_bytes_per_rank"] = -5;
  expect_refused(memory, "\"memory_bytes_per_rank\": -5",
                 "machine.memory_bytes_per_rank: expected a number from 0 to 1e+18, got -5");
  nlohmann::json no_gemms = base;
  no_gemms["gemms"] = nlohmann::json::array();
  expect_refused(no_gemms, "", "no GEMM measured (gemms)");
}

TEST_F(MpiLoop, AFailingRankEndsEveryRank) {
  const Launch run = launch(2, "run " + kScenario + " --strategy zero-3 --fail-rank 1 --timeout 60 --out -");
  EXPECT_EQ(run.exit_code, 4) << run.output;
  EXPECT_NE(run.output.find("rank 1: error: injected failure"), std::string::npos) << run.output;
  EXPECT_LT(run.seconds, 50) << "ended by the failure, not by the timeout";
}

TEST_F(MpiLoop, AStalledRankTimesOutInsteadOfHanging) {
  const Launch run = launch(
      2, "run " + kScenario + " --strategy zero-3 --stall-rank 1 --stall-seconds 60 --timeout 2 --out -");
  EXPECT_EQ(run.exit_code, 4) << run.output;
  EXPECT_NE(run.output.find("rank 0: error:"), std::string::npos) << run.output;
  EXPECT_LT(run.seconds, 40);
}

TEST_F(MpiLoop, APlanForAnotherModelIsRefused) {
  Plan plan;
  plan.strategy = "other";
  plan.operators.push_back(OperatorChoice{});
  plan.operators.back().name = "not-an-operator";
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_other-plan.json";
  std::ofstream(path) << plan_to_json(plan).dump(2);
  const Launch run = launch(2, "run " + kScenario + " --plan " + path + " --out -");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("other-plan.json"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace shardscope::validate
