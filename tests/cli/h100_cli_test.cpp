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

TEST(H100Cli, CompareReadsAnEmulatedRank) {
  const std::string out = test::write_temp("h100-compare.json", "");
  const test::CommandResult r = test::run_command(
      kBinary + " compare " + SHARDSCOPE_SOURCE_DIR +
      "/validate/scenarios/gpu-llama-7b-paro.yaml --measured " + kData +
      "/call-4/run-gpu-llama-7b-paro.json --calibration " + kData + "/calibration.yaml --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(test::read_file(out));
  std::vector<std::string> sections;
  for (const auto& s : j["sections"]) sections.push_back(s["name"]);
  EXPECT_EQ(sections, (std::vector<std::string>{"compute", "peak_memory", "operators"}));
  EXPECT_LE(j["sections"][0]["planner"]["mape"].get<double>(), 0.05);
  std::filesystem::remove(out);
}
#endif

}  // namespace
}  // namespace shardscope
