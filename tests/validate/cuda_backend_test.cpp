// The cuda-nccl backend: its NCCL group layout is the cpu backend's MPI one; without a GPU the command line
// ends with exit 4 and the probe's reason; with one (skipped here: "no CUDA device: ..."), bench and a run of
// rank 0 of the two-rank CPU scenario emulated on one GPU, whose pool peak is the program's peak within 2 %.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/validate/mpi_launch.hpp"
#include "validate/cuda/device_probe.hpp"
#include "validate/cuda/group_layout.hpp"
#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {
namespace {

const std::string kScenario = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/scenarios/cpu-2rank.yaml";

Launch launch(int ranks, const std::string& arguments) {
  return launch_under_mpi(SHARDSCOPE_MPIEXEC, SHARDSCOPE_VALIDATE_BINARY, ranks, arguments, "cuda-cli.log");
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The ranks that MPI_Comm_split puts with `rank` (same colour, world order), from the cpu backend's colours.
std::vector<int> cpu_group(GroupKind kind, int rank, int ranks, int group_size) {
  std::vector<int> members;
  for (int r = 0; r < ranks; ++r) {
    if (mpi_split_color(kind, r, group_size) == mpi_split_color(kind, rank, group_size)) members.push_back(r);
  }
  return members;
}

TEST(CudaGroupLayout, SameGroupsAsTheCpuBackend) {
  const std::vector<std::pair<int, int>> layouts = {{1, 1}, {2, 1},  {2, 2},  {4, 2}, {8, 4},
                                                    {8, 8}, {16, 8}, {12, 4}, {6, 4}};
  for (const auto& [ranks, group_size] : layouts) {
    for (GroupKind kind : {GroupKind::intra, GroupKind::inter, GroupKind::global}) {
      for (int rank = 0; rank < ranks; ++rank) {
        const std::vector<int> expected = cpu_group(kind, rank, ranks, group_size);
        const GroupPlacement p = group_placement(kind, rank, ranks, group_size);
        std::vector<int> same_color;
        for (int r = 0; r < ranks; ++r) {
          if (group_placement(kind, r, ranks, group_size).color == p.color) same_color.push_back(r);
        }
        const std::string where = std::string(to_string(kind)) + ", " + std::to_string(ranks) +
                                  " ranks, M = " + std::to_string(group_size) + ", rank " +
                                  std::to_string(rank);
        EXPECT_EQ(same_color, expected) << where;
        EXPECT_EQ(p.comm_size, static_cast<int>(expected.size())) << where;
        EXPECT_EQ(p.key, rank) << where;
        const auto index = std::find(expected.begin(), expected.end(), rank) - expected.begin();
        EXPECT_EQ(p.comm_rank, static_cast<int>(index)) << where;
      }
    }
  }
}

TEST(CudaGroupLayout, ARankOutsideTheWorldIsRefused) {
  EXPECT_THROW(group_placement(GroupKind::intra, 8, 8, 4), std::invalid_argument);
  EXPECT_THROW(group_placement(GroupKind::inter, -1, 8, 4), std::invalid_argument);
}

class CudaCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(SHARDSCOPE_MPIEXEC).empty()) GTEST_SKIP() << "mpirun was not found at configure time";
  }
};

TEST_F(CudaCli, WithoutAGpuBenchAndRunExitFourSayingWhy) {
  const DeviceProbe probe = probe_cuda_devices();
  if (probe.usable()) GTEST_SKIP() << "a CUDA device is present (" << probe.device_count << ")";
  EXPECT_TRUE(has(probe.reason(), "no CUDA device: cudaGetDeviceCount returned ")) << probe.reason();
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_no-gpu.json";
  for (const std::string& command :
       {"--backend cuda-nccl bench --out " + out,
        "--backend cuda-nccl run " + kScenario + " --emulate-rank 0 --out " + out}) {
    const Launch run = launch(1, command);
    EXPECT_EQ(run.exit_code, 4) << command << "\n" << run.output;
    EXPECT_TRUE(has(run.output, "rank 0: error: no CUDA device: cudaGetDeviceCount returned ")) << run.output;
  }
}

// --no-mpi: one plain process, MPI never initialised (the GPU check's way on a machine without MPI): an
// emulated rank gets as far as the device; anything that talks to other ranks is refused.
TEST(CudaNoMpi, AnEmulatedRankRunsWithoutMpirunAndOnlyIt) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_no-mpi.json";
  const DeviceProbe probe = probe_cuda_devices();
  for (const std::string& command :
       {"--no-mpi --backend cuda-nccl run " + kScenario + " --emulate-rank 0 --out " + out,
        "--no-mpi --backend cuda-nccl bench --scenario " + kScenario + " --emulate-rank 0 --out " + out}) {
    const Launch run = launch_alone(SHARDSCOPE_VALIDATE_BINARY, command, "no-mpi.log");
    if (probe.usable()) {
      EXPECT_EQ(run.exit_code, 0) << command << "\n" << run.output;
    } else {
      EXPECT_EQ(run.exit_code, 4) << command << "\n" << run.output;
      EXPECT_TRUE(has(run.output, "rank 0: error: no CUDA device: ")) << run.output;
    }
    EXPECT_FALSE(has(run.output, "MPI_Init")) << run.output;
  }
  for (const std::string& command : std::vector<std::string>{
           "--no-mpi run " + kScenario + " --out " + out, "--no-mpi --backend cuda-nccl bench --out " + out,
           "--no-mpi describe --out -"}) {
    const Launch run = launch_alone(SHARDSCOPE_VALIDATE_BINARY, command, "no-mpi.log");
    EXPECT_EQ(run.exit_code, 2) << command << "\n" << run.output;
    EXPECT_TRUE(has(run.output, "--no-mpi runs one process without MPI")) << run.output;
  }
  const Launch help = launch_alone(SHARDSCOPE_VALIDATE_BINARY, "--no-mpi --help", "no-mpi.log");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_TRUE(has(help.output, "--no-mpi")) << help.output;
}

TEST_F(CudaCli, EmulateRankNeedsTheCudaBackend) {
  const Launch run = launch(1, "run " + kScenario + " --emulate-rank 0 --out -");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(has(run.output, "--emulate-rank needs --backend cuda-nccl")) << run.output;
}

TEST_F(CudaCli, AnEmulatedRankOutsideThePlanIsRefused) {
  const Launch run = launch(1, "--backend cuda-nccl run " + kScenario + " --emulate-rank 2 --out -");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(has(run.output, "--emulate-rank 2 is not a rank of the scenario's 2 GPUs")) << run.output;
}

// GPU-only: skipped with the probe's reason on machines without one.
class CudaGpu : public CudaCli {
 protected:
  void SetUp() override {
    CudaCli::SetUp();
    if (IsSkipped()) return;
    const DeviceProbe probe = probe_cuda_devices();
    if (!probe.usable()) GTEST_SKIP() << probe.reason();
  }
};

TEST_F(CudaGpu, BenchMeasuresTheScenariosProductsAndCopies) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_cuda-bench.json";
  const Launch run =
      launch(1, "--backend cuda-nccl bench --scenario " + kScenario +
                    " --strategy zero-3 --max-bytes 1048576 --iterations 5 --min-seconds 0.02 --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json j = read_json(out);
  EXPECT_EQ(j["machine"]["backend"], "cuda-nccl");
  EXPECT_TRUE(has(j["machine"]["versions"]["cuda"].get<std::string>(), "NCCL "));
  ASSERT_FALSE(j["gemms"].empty());
  for (const auto& g : j["gemms"]) {
    EXPECT_EQ(g["dtype"], "bfloat16");
    EXPECT_GT(g["time_seconds"].get<double>(), 0);
  }
  EXPECT_FALSE(j["elementwise"].empty());
  bool device_copy = false;
  for (const auto& c : j["copies"]) device_copy = device_copy || c["kind"] == "device_to_device";
  EXPECT_TRUE(device_copy);
}

TEST_F(CudaGpu, EmulatedRankZeroPeaksAtTheProgramsPeak) {
  const std::string out = ::testing::TempDir() + std::to_string(::getpid()) + "_cuda-run.json";
  const Launch run =
      launch(1, "--backend cuda-nccl run " + kScenario +
                    " --emulate-rank 0 --strategy zero-3 --strategy ddp --iterations 1 --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json j = read_json(out);
  EXPECT_EQ(j["machine"]["backend"], "cuda-emulated");
  EXPECT_EQ(j["machine"]["emulated_rank"], 0);
  ASSERT_EQ(j["iterations"].size(), 2u);
  for (const auto& it : j["iterations"]) {
    const double peak = it["peak_bytes"], predicted = it["program_peak_bytes"];
    // Exactly the program's since a release gives back the buffer it names (validate/data/h100/call-4).
    EXPECT_LE(std::abs(peak - predicted), 1e-6 * predicted) << it["strategy"] << ": pool peak " << peak;
    EXPECT_GE(it["device_peak_bytes_per_rank"][0].get<double>(), peak);
    EXPECT_GT(it["emulated_collective_seconds_per_rank"][0].get<double>(), 0);
    EXPECT_GT(it["iteration_seconds"].get<double>(), 0);
  }
}

}  // namespace
}  // namespace shardscope::validate
