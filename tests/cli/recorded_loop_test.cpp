// The CPU validation loop replayed on recorded measurements (validate/data/cpu-2rank/, written by
// scripts/validate-cpu-loop.sh on the 2-core build machine; the folder's README.md has the command and the
// machine): the fit on the micro-benchmarks alone reproduces the committed calibration.yaml byte for byte,
// and with it the predictions of the plans the fit never saw meet issue 11's targets on real measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/run_command.hpp"

namespace shardscope {
namespace {

const std::string kData = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/data/cpu-2rank";
const std::string kBinary = SHARDSCOPE_BINARY;

#ifdef SHARDSCOPE_HAVE_FIT
TEST(RecordedCpuLoop, FitOnTheMicroBenchmarksReproducesTheCommittedCalibration) {
  const std::string out = test::write_temp("recorded-calibration.yaml", "");
  const test::CommandResult r = test::run_command(kBinary + " calibrate " + kData + "/bench.json --cluster " +
                                                  kData + "/machine.yaml --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The comment header names the input files by the paths given; the rest is the same keys in the same
  // order with the same numbers (to 1e-9: another CPU's libm may round a last bit differently).
  const auto split = [](const std::string& yaml) {
    std::istringstream in(yaml);
    std::string line, skeleton;
    std::vector<double> numbers;
    const std::regex number(R"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)");
    while (std::getline(in, line)) {
      if (line.rfind('#', 0) == 0) continue;
      for (std::sregex_iterator it(line.begin(), line.end(), number), end; it != end; ++it)
        numbers.push_back(std::stod(it->str()));
      skeleton += std::regex_replace(line, number, "N") + "\n";
    }
    return std::make_pair(skeleton, numbers);
  };
  const auto [skeleton, numbers] = split(test::read_file(out));
  const auto [committed_skeleton, committed_numbers] = split(test::read_file(kData + "/calibration.yaml"));
  EXPECT_EQ(skeleton, committed_skeleton);
  ASSERT_EQ(numbers.size(), committed_numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i)
    EXPECT_NEAR(numbers[i], committed_numbers[i], 1e-9 * std::fabs(committed_numbers[i])) << i;
  std::filesystem::remove(out);
}
#endif

// Issue 11's targets, on real measurements of eight plans the fit never saw: iteration time within 10 %
// (MAPE, both planner and simulator) and the counting allocator's peak within 2 %. (Its third target, the
// strategies ranked as measured with Spearman >= 0.9, is not met here: on this machine the eight plans'
// measured times lie within 11 % of each other and their order is at the mercy of run-to-run noise; the
// recorded Spearman is in compare.md and in the README.)
TEST(RecordedCpuLoop, PredictionsOfUnseenPlansMeetTheTargets) {
  const std::string out = test::write_temp("recorded-compare.json", "");
  const test::CommandResult r =
      test::run_command(kBinary + " compare " + kData + "/scenario.yaml --measured " + kData +
                        "/run.json --calibration " + kData + "/calibration.yaml --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(test::read_file(out));
  std::filesystem::remove(out);
  const nlohmann::json& iteration = j["sections"][0];
  const nlohmann::json& peak = j["sections"][1];
  ASSERT_EQ(iteration["name"], "iteration");
  ASSERT_EQ(peak["name"], "peak_memory");
  EXPECT_GE(iteration["planner"]["points"].get<int>(), 5);
  EXPECT_LE(iteration["planner"]["mape"].get<double>(), 0.10);
  EXPECT_LE(peak["planner"]["max_abs_error"].get<double>(), 0.02);
  if (j["simulator_available"].get<bool>()) {
    EXPECT_LE(iteration["simulator"]["mape"].get<double>(), 0.10);
    EXPECT_LE(peak["simulator"]["max_abs_error"].get<double>(), 0.02);
  }
}

}  // namespace
}  // namespace shardscope
