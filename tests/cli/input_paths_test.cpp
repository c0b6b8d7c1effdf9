// How plan, inspect and simulate take their inputs from the command line (issue 29): --cluster a preset or a
// file as everywhere, a --set of the GPU's memory shown beside the GPU's name, and an error an override
// causes named after the override, never after a line of the scenario file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kDefault = kSource + "/scenarios/default.yaml";
const std::string kClusterFile = kSource + "/scenarios/clusters/dgx-a100.yaml";

// `plan` refused the cluster file that `collective --cluster` takes ("unknown cluster preset").
TEST(InputPaths, ClusterTakesAFileWhereverItTakesAPreset) {
  for (const char* command : {"plan --no-baselines", "inspect"}) {
    const auto file =
        test::run_command(kBinary + " " + command + " --json " + kDefault + " --cluster " + kClusterFile);
    const auto preset =
        test::run_command(kBinary + " " + command + " --json " + kDefault + " --cluster dgx-a100");
    ASSERT_EQ(file.exit_code, 0) << command << ": " << file.err;
    ASSERT_EQ(preset.exit_code, 0) << command << ": " << preset.err;
    nlohmann::json a = nlohmann::json::parse(file.out), b = nlohmann::json::parse(preset.out);
    EXPECT_EQ(a.value("plan", nlohmann::json()), b.value("plan", nlohmann::json())) << command;
    EXPECT_EQ(a.value("cluster", nlohmann::json()), b.value("cluster", nlohmann::json())) << command;
  }
  // Relative to the working directory, as collective reads it.
  const auto relative = test::run_command("cd " + kSource + " && " + kBinary +
                                          " inspect --json scenarios/default.yaml --cluster "
                                          "scenarios/clusters/dgx-a100.yaml --nodes 2");
  ASSERT_EQ(relative.exit_code, 0) << relative.err;
  EXPECT_EQ(nlohmann::json::parse(relative.out)["cluster"]["gpus"], 16);
}

// The header said "8 x A100-SXM4-80GB" for GPUs set to 40 GiB.
TEST(InputPaths, ASetOfTheGpuMemoryIsShownWithTheGpu) {
  const std::string args = kDefault + " --cluster dgx-a100 --set cluster.gpu.memory=40GiB";
  const std::string label = "A100-SXM4-80GB (memory set to 40.00 GiB)";
  const auto plan = test::run_command(kBinary + " plan --no-baselines " + args);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("on 8 x " + label + ", memory limit"), std::string::npos) << plan.out;
  const auto inspect = test::run_command(kBinary + " inspect " + args);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("8 x " + label + ", 40.00 GiB each"), std::string::npos) << inspect.out;
  const auto json = test::run_command(kBinary + " inspect --json " + args);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["cluster"]["gpu"], label);
  // Without the --set the name stands alone.
  const auto plain = test::run_command(kBinary + " plan --no-baselines " + kDefault + " --cluster dgx-a100");
  EXPECT_NE(plain.out.find("on 8 x A100-SXM4-80GB, memory limit"), std::string::npos) << plain.out;
}

// Errors of a --set name the flag with its value; one in a field of the file that the --set made wrong was
// blamed on the file's line alone.
TEST(InputPaths, ErrorsOfASetNameTheFlagAndItsValue) {
  const auto unknown = test::run_command(kBinary + " inspect " + kDefault + " --set model.layers=abc");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.rfind("error: --set model.layers=abc: unknown key; expected one of: ", 0), 0u)
      << unknown.err;
  const std::string paro = kSource + "/scenarios/paro-llama-7b-32gpu.yaml";
  const auto caused = test::run_command(kBinary + " inspect " + paro + " --set cluster.gpu.memory=1GiB");
  EXPECT_EQ(caused.exit_code, 2);
  EXPECT_EQ(caused.err, "error: --set cluster.gpu.memory=1GiB: with this value, training.runtime_reserve (" +
                            paro +
                            ":6): the runtime reserve must be below the memory limit (1073741824 bytes)\n");
  const auto flag =
      test::run_command(kBinary + " plan " + kDefault + " --micro-batch 3 --set training.global_batch=8");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_EQ(flag.err.find("error: --micro-batch: "), 0u) << flag.err;  // never "--micro-batch: micro-batch:"
}

}  // namespace
}  // namespace shardscope
