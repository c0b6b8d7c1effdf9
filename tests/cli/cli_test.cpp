// CLI tests: `inspect` output, `plan --out`, and bad input giving a non-zero exit with file:line: field (the
// exact outputs, JSON included, are the golden transcripts in tests/transcripts/).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / ("shardscope_cli_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(Cli, InspectPrintsModelClusterAndStates) {
  const auto r = test::run_command(kBinary + " inspect " + kSource + "/scenarios/default.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("98 operators"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pcie-cross-socket"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ZeRO-3"), std::string::npos) << r.out;
}

TEST(Cli, BadInputExitsNonZeroNamingFileLineAndField) {
  const std::string path =
      write_temp("bad.yaml", "model: {preset: nd-48x1536}\ncluster:\n  preset: dgx-a100\n  nodes: -3\n");
  const auto r = test::run_command(kBinary + " inspect " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":4: cluster.nodes: expected an integer between 1 and 100000"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(path);
}

TEST(Cli, EmptyFileDirectoryAndGarbageAreErrorsNotCrashes) {
  const std::string empty = write_temp("empty.yaml", "");
  auto r = test::run_command(kBinary + " inspect " + empty);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("file is empty"), std::string::npos) << r.err;
  r = test::run_command(kBinary + " inspect " + std::filesystem::temp_directory_path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 131 + 7) % 256));
  const std::string junk = write_temp("junk.yaml", garbage);
  r = test::run_command(kBinary + " inspect " + junk);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: " + junk), std::string::npos) << r.err;
  std::filesystem::remove(empty);
  std::filesystem::remove(junk);
}

TEST(Cli, PlanWritesThePlanFileAndPrintsTheTable) {
  const auto out =
      std::filesystem::temp_directory_path() / ("shardscope_plan_" + std::to_string(::getpid()) + ".json");
  const auto r =
      test::run_command(kBinary + " plan " + kSource + "/scenarios/default.yaml --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Optimality lower bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fsdp"), std::string::npos) << r.out;
  // plan --out writes what plan --json prints (tests/transcripts/plan-default-json.tesh).
  EXPECT_EQ(read_file(out.string()), read_file(kSource + "/tests/golden/plan-default.json"));
  std::filesystem::remove(out);
}

TEST(Cli, PlanThatCannotFitExitsWithTheMinimumMemory) {
  const std::string path = write_temp("nofit.yaml",
                                      "model: {preset: ws-2x12288}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                                      "training: {memory_limit: 8GB, runtime_reserve: 512MiB}\n");
  const auto r = test::run_command(kBinary + " plan --no-baselines " + path);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no plan fits the memory limit; the smallest needs"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("No plan fits"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

TEST(Cli, MissingArgumentIsAUsageError) {
  const auto r = test::run_command(kBinary + " inspect");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("scenario is required"), std::string::npos) << r.err;
}

TEST(Cli, PlanOutIsOpenedBeforePlanning) {
  // This scenario fails while planning (the paper model needs per-operator coefficients) ...
  const std::string path = write_temp("paper.yaml",
                                      "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
                                      "planner: {cost_model: paper, paper: {alpha: 10us, beta: 10GB/s}}\n");
  auto r = test::run_command(kBinary + " plan " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(".paper: "), std::string::npos) << r.err;
  // ... so an unwritable --out can only be reported first if it is checked before planning.
  r = test::run_command(kBinary + " plan " + path + " --out /nonexistent-dir/p.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: cannot write /nonexistent-dir/p.json\n");
  EXPECT_EQ(r.out, "");
  std::filesystem::remove(path);
}

TEST(Cli, PlanReportCarriesTheConfigurationAndPerOperatorCosts) {
  const std::string out = write_temp("report.json", "");
  const auto r =
      test::run_command(kBinary + " plan " + kSource + "/scenarios/default.yaml --no-baselines --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(out);
  for (const char* key : {"\"precision\": \"mixed-fp16\"", "\"sequence_length_tokens\": ",
                          "\"cost_model\": \"topology\"", "\"scenario_digest\": \"",
                          "\"calibration_digest\": \"", "\"operator_costs\": [", "\"optimizer_bytes\": "}) {
    EXPECT_NE(text.find(key), std::string::npos) << key;
  }
  // The text report's operator table is printed from the same per-operator costs.
  EXPECT_NE(r.out.find("memory/GPU each"), std::string::npos) << r.out;
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace shardscope
