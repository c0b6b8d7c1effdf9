// `shardscope calibrate --product-shapes --holdout` and `compare` on the recorded H100 checks
// (validate/data/h100): the fit reproduces the committed calibration.yaml and its held-out line, and compare
// reads an emulated rank's run (compute and operators, no collectives) with it.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run_command.hpp"

namespace shardscope {
namespace {

const std::string kData = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/data/h100";
const std::string kBinary = SHARDSCOPE_BINARY;

#ifdef SHARDSCOPE_HAVE_FIT
TEST(H100Cli, CalibrateWithProductShapesReproducesTheCommittedFitAndItsHeldOutScore) {
  const std::string out = test::write_temp("h100-calibration.yaml", "");
  std::string files;
  for (const char* f : {"gemms-default.json", "gemms-gpu-llama-7b-paro.json", "gemms-osdp-ic-48-16gpu.json",
                        "gemms-osdp-nd-96x1536-16gb.json", "gemms-osdp-ws-2x10240-16gb.json",
                        "gemms-paro-llama-65b-128gpu.json", "gemms-paro-llama-7b-32gpu.json"})
    files += " " + kData + "/" + f;
  const test::CommandResult r = test::run_command(kBinary + " calibrate" + files + " --cluster " + kData +
                                                  "/cluster.yaml --product-shapes --holdout --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("Held out: fitted on 144 products, priced 143 others: mean |error| 5.5 %, time-weighted "
                 "4.3 %"),
      std::string::npos)
      << r.out;
  const auto body = [](const std::string& yaml) { return yaml.substr(yaml.find("\nachievable_fraction:")); };
  EXPECT_EQ(body(test::read_file(out)), body(test::read_file(kData + "/calibration.yaml")));
  std::filesystem::remove(out);
}

// The recorded run's "shardscope" iteration ran FSDP's plan, which the planner recommended while it priced
// its own plans on rings and FSDP on NCCL (issue 31); today's recommendation is another plan, so compare
// refuses the record as it is (exit 2, naming the digest) and reads it with that iteration named fsdp.
TEST(H100Cli, CompareReadsAnEmulatedRank) {
  const std::string compare = kBinary + " compare " + SHARDSCOPE_SOURCE_DIR +
                              "/validate/scenarios/gpu-llama-7b-paro.yaml --calibration " + kData +
                              "/calibration.yaml --measured ";
  const test::CommandResult as_recorded =
      test::run_command(compare + kData + "/call-4/run-gpu-llama-7b-paro.json");
  EXPECT_EQ(as_recorded.exit_code, 2);
  EXPECT_NE(as_recorded.err.find("iterations[0].plan_digest: the run executed plan 3c24b95eae1f0154"),
            std::string::npos)
      << as_recorded.err;
  nlohmann::json run = nlohmann::json::parse(test::read_file(kData + "/call-4/run-gpu-llama-7b-paro.json"));
  ASSERT_EQ(run["iterations"][0]["strategy"], "shardscope");
  run["iterations"][0]["strategy"] = "fsdp";
  const std::string measured = test::write_temp("h100-run-as-executed.json", run.dump());
  const std::string out = test::write_temp("h100-compare.json", "");
  // An emulated rank measures no whole iteration: nothing to score a calibration on, and nothing written.
  const std::string scored = test::write_temp("h100-scored.yaml", "");
  std::filesystem::remove(scored);
  const test::CommandResult unscored = test::run_command(compare + measured + " --score-into " + scored);
  EXPECT_EQ(unscored.exit_code, 2);
  EXPECT_NE(unscored.err.find("no measured iteration has a planner prediction to score on"),
            std::string::npos)
      << unscored.err;
  EXPECT_FALSE(std::filesystem::exists(scored));
  const test::CommandResult r = test::run_command(compare + measured + " --json " + out);
  std::filesystem::remove(measured);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(test::read_file(out));
  std::vector<std::string> sections;
  for (const auto& s : j["sections"]) sections.push_back(s["name"]);
  EXPECT_EQ(sections, (std::vector<std::string>{"compute", "peak_memory", "operators"}));
  EXPECT_LE(j["sections"][0]["planner"]["mape"].get<double>(), 0.05);
  std::filesystem::remove(out);
}

// Users' own artefacts: published nccl-tests logs (8 x A100: ring rates, fitted near the 235 GB/s they
// show; 8 x H100 with NVLS: warned, since a switch reduction is not a link rate) and a PyTorch trace.
TEST(H100Cli, CalibrateReadsNcclTestsLogsAndProfilerTraces) {
  const std::string fixtures = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/fixtures/nccl-tests/";
  const std::string out = test::write_temp("artefact-calibration.yaml", "");
  const test::CommandResult a100 =
      test::run_command(kBinary + " calibrate --nccl-tests " + fixtures +
                        "dgx-a100-1node-all_reduce.log --cluster dgx-a100 --out " + out);
  ASSERT_EQ(a100.exit_code, 0) << a100.err;
  const std::string yaml = test::read_file(out);
  const std::size_t at = yaml.find("bandwidth: ");
  ASSERT_NE(at, std::string::npos) << yaml;
  EXPECT_NEAR(std::stod(yaml.substr(at + 11)), 235e9, 0.03 * 235e9) << yaml;
  EXPECT_EQ(a100.out.find("warning:"), std::string::npos) << a100.out;
  const test::CommandResult nvls =
      test::run_command(kBinary + " calibrate --nccl-tests " + fixtures + "dgx-h100-1node-all_reduce.log " +
                        fixtures + "dgx-h100-1node-all_gather.log --cluster dgx-h100 --out " + out);
  ASSERT_EQ(nvls.exit_code, 0) << nvls.err;
  EXPECT_NE(nvls.out.find("warning: links.nvlink.bandwidth"), std::string::npos) << nvls.out;
  const test::CommandResult wrong =
      test::run_command(kBinary + " calibrate --nccl-tests " + fixtures +
                        "dgx-h100-2node-all_reduce.log --cluster dgx-h100 --out " + out);
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("16 ranks measured, but the cluster dgx-h100 has 8 GPUs"), std::string::npos)
      << wrong.err;
  const test::CommandResult trace = test::run_command(kBinary + " calibrate --torch-trace " + kData +
                                                      "/call-2/trace-llama-7b-x8-mb6-none.json.gz " + kData +
                                                      "/call-2/trace-nd-48x1536-mb2-none.json.gz --cluster " +
                                                      kData + "/cluster.yaml --product-shapes --out " + out);
  ASSERT_EQ(trace.exit_code, 0) << trace.err;
  EXPECT_NE(trace.out.find("trace-nd-48x1536-mb2-none.json.gz: 4093 kernels"), std::string::npos)
      << trace.out;
  EXPECT_NE(test::read_file(out).find("misaligned_dimensions: any"), std::string::npos);
  std::filesystem::remove(out);
}
#endif

}  // namespace
}  // namespace shardscope
